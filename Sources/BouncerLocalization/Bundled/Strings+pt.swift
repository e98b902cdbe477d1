extension BundledStrings {
    /// Portuguese (Portugal) (pt). Same keys and format placeholders as `en`, which is the fallback.
    static let pt: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Tem a certeza?",
        "message.moderation.alert.message": "Pense na forma como o seu comentário pode fazer os outros sentirem-se e certifique-se de que cumpre as nossas Diretrizes da comunidade.",
        "message.moderation.alert.resend": "Enviar mesmo assim",
        "message.moderation.alert.edit": "Editar mensagem",
        "message.moderation.alert.delete": "Eliminar mensagem",
        "message.bounce.title": "Mensagem rejeitada",
        "message.actions.flag": "Denunciar mensagem",
        "message.actions.flag.confirmation-title": "Denunciar mensagem",
        "message.actions.flag.confirmation-message": "Pretende enviar uma cópia desta mensagem a um moderador para uma análise mais aprofundada?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Denunciar",
        "message.actions.edit": "Editar mensagem",
        "message.actions.delete": "Eliminar mensagem",
        "message.actions.delete.confirmation-title": "Eliminar mensagem",
        "message.actions.delete.confirmation-message": "Tem a certeza de que pretende eliminar esta mensagem permanentemente?",
        "message.actions.delete.confirmation-button": "Eliminar",
        "message.actions.resend": "Enviar mesmo assim",
        "message.deleted.text": "Esta mensagem foi eliminada.",

        // Problem titles, by status.
        "error.400.title": "Pedido inválido",
        "error.401.title": "Não autorizado",
        "error.403.title": "Proibido",
        "error.404.title": "Não encontrado",
        "error.405.title": "Método não permitido",
        "error.408.title": "Tempo limite do pedido esgotado",
        "error.409.title": "Conflito",
        "error.413.title": "Conteúdo demasiado grande",
        "error.414.title": "URI demasiado longo",
        "error.415.title": "Tipo de média não suportado",
        "error.417.title": "Falha na expectativa",
        "error.422.title": "Conteúdo não processável",
        "error.429.title": "Demasiados pedidos",
        "error.431.title": "Campos de cabeçalho do pedido demasiado grandes",
        "error.500.title": "Erro interno do servidor",
        "error.501.title": "Não implementado",
        "error.503.title": "Serviço indisponível",
        "error.505.title": "Versão de HTTP não suportada",

        // Problem details, by code.
        "error.not_found.detail": "Não existe nada neste caminho.",
        "error.method_not_allowed.detail": "%1$@ não é permitido aqui; permitidos: %2$@.",
        "error.unauthenticated.detail": "É necessário um token Bearer no cabeçalho Authorization.",
        "error.invalid_token.detail": "O token está mal formado, é falso, expirou ou ainda não é válido.",
        "error.forbidden.detail": "É necessária a função %@.",
        "error.rate_limited.detail": "Demasiadas mensagens; tente novamente dentro de %d segundos.",
        "error.body_too_large.detail": "O corpo do pedido excede %d bytes.",
        "error.unsupported_media_type.detail": "O corpo tem de ser JSON (Content-Type: application/json).",
        "error.invalid_json.detail": "O corpo do pedido não é JSON válido.",
        "error.json_too_deep.detail": "O corpo JSON tem mais de %d níveis de aninhamento.",
        "error.request_timeout.detail": "O pedido não foi recebido a tempo.",
        "error.internal_error.detail": "O servidor não conseguiu concluir o pedido.",
        "error.not_ready.detail": "O armazenamento não está aberto ou não foi migrado.",
        "error.locale_not_found.detail": "Não existem textos para a configuração regional %@.",
    ]
}
