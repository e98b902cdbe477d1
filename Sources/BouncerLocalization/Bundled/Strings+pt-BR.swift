extension BundledStrings {
    /// Portuguese (Brazil) (pt-BR). Same keys and format placeholders as `en`, which is the fallback.
    static let ptBR: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Tem certeza?",
        "message.moderation.alert.message": "Pense em como seu comentário pode fazer os outros se sentirem e siga nossas Diretrizes da Comunidade.",
        "message.moderation.alert.resend": "Enviar mesmo assim",
        "message.moderation.alert.edit": "Editar mensagem",
        "message.moderation.alert.delete": "Apagar mensagem",
        "message.bounce.title": "Mensagem rejeitada",
        "message.actions.flag": "Denunciar mensagem",
        "message.actions.flag.confirmation-title": "Denunciar mensagem",
        "message.actions.flag.confirmation-message": "Quer enviar uma cópia desta mensagem para um moderador analisar?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Denunciar",
        "message.actions.edit": "Editar mensagem",
        "message.actions.delete": "Apagar mensagem",
        "message.actions.delete.confirmation-title": "Apagar mensagem",
        "message.actions.delete.confirmation-message": "Tem certeza de que quer apagar esta mensagem permanentemente?",
        "message.actions.delete.confirmation-button": "Apagar",
        "message.actions.resend": "Enviar mesmo assim",
        "message.deleted.text": "Esta mensagem foi apagada.",

        // Problem titles, by status.
        "error.400.title": "Requisição inválida",
        "error.401.title": "Não autorizado",
        "error.403.title": "Proibido",
        "error.404.title": "Não encontrado",
        "error.405.title": "Método não permitido",
        "error.408.title": "Tempo limite da requisição esgotado",
        "error.409.title": "Conflito",
        "error.413.title": "Conteúdo muito grande",
        "error.414.title": "URI muito longo",
        "error.415.title": "Tipo de mídia não suportado",
        "error.417.title": "Falha na expectativa",
        "error.422.title": "Conteúdo não processável",
        "error.429.title": "Muitas requisições",
        "error.431.title": "Campos de cabeçalho da requisição muito grandes",
        "error.500.title": "Erro interno do servidor",
        "error.501.title": "Não implementado",
        "error.503.title": "Serviço indisponível",
        "error.505.title": "Versão HTTP não suportada",

        // Problem details, by code.
        "error.not_found.detail": "Não há nada neste caminho.",
        "error.method_not_allowed.detail": "%1$@ não é permitido aqui; permitidos: %2$@.",
        "error.unauthenticated.detail": "É necessário um token Bearer no cabeçalho Authorization.",
        "error.invalid_token.detail": "O token está malformado, é falso, expirou ou ainda não é válido.",
        "error.forbidden.detail": "É necessária a função %@.",
        "error.rate_limited.detail": "Muitas mensagens; tente novamente em %d segundos.",
        "error.body_too_large.detail": "O corpo da requisição é maior que %d bytes.",
        "error.unsupported_media_type.detail": "O corpo deve ser JSON (Content-Type: application/json).",
        "error.invalid_json.detail": "O corpo da requisição não é um JSON válido.",
        "error.json_too_deep.detail": "O corpo JSON tem mais de %d níveis de aninhamento.",
        "error.request_timeout.detail": "A requisição não foi recebida a tempo.",
        "error.internal_error.detail": "O servidor não conseguiu concluir a requisição.",
        "error.not_ready.detail": "O armazenamento não está aberto ou não foi migrado.",
        "error.locale_not_found.detail": "Não há textos para a localidade %@.",
    ]
}
