extension BundledStrings {
    /// Korean (ko). Same keys and format placeholders as `en`, which is the fallback.
    static let ko: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "계속하시겠어요?",
        "message.moderation.alert.message": "내 댓글이 다른 사람에게 어떻게 느껴질지 생각해 보고 커뮤니티 가이드라인을 꼭 지켜 주세요.",
        "message.moderation.alert.resend": "그래도 보내기",
        "message.moderation.alert.edit": "메시지 수정",
        "message.moderation.alert.delete": "메시지 삭제",
        "message.bounce.title": "메시지가 거부됨",
        "message.actions.flag": "메시지 신고",
        "message.actions.flag.confirmation-title": "메시지 신고",
        "message.actions.flag.confirmation-message": "추가 검토를 위해 이 메시지의 사본을 운영자에게 보내시겠어요?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "신고",
        "message.actions.edit": "메시지 수정",
        "message.actions.delete": "메시지 삭제",
        "message.actions.delete.confirmation-title": "메시지 삭제",
        "message.actions.delete.confirmation-message": "이 메시지를 영구적으로 삭제하시겠어요?",
        "message.actions.delete.confirmation-button": "삭제",
        "message.actions.resend": "그래도 보내기",
        "message.deleted.text": "삭제된 메시지입니다.",

        // Problem titles, by status.
        "error.400.title": "잘못된 요청",
        "error.401.title": "인증 필요",
        "error.403.title": "접근 금지",
        "error.404.title": "찾을 수 없음",
        "error.405.title": "허용되지 않는 메서드",
        "error.408.title": "요청 시간 초과",
        "error.409.title": "충돌",
        "error.413.title": "콘텐츠가 너무 큼",
        "error.414.title": "URI가 너무 김",
        "error.415.title": "지원되지 않는 미디어 유형",
        "error.417.title": "기대 조건 실패",
        "error.422.title": "처리할 수 없는 콘텐츠",
        "error.429.title": "요청이 너무 많음",
        "error.431.title": "요청 헤더 필드가 너무 큼",
        "error.500.title": "내부 서버 오류",
        "error.501.title": "구현되지 않음",
        "error.503.title": "서비스를 사용할 수 없음",
        "error.505.title": "지원되지 않는 HTTP 버전",

        // Problem details, by code.
        "error.not_found.detail": "이 경로에는 아무것도 없습니다.",
        "error.method_not_allowed.detail": "여기서는 %1$@ 메서드를 사용할 수 없습니다. 허용: %2$@.",
        "error.unauthenticated.detail": "Authorization 헤더에 Bearer 토큰이 필요합니다.",
        "error.invalid_token.detail": "토큰 형식이 잘못되었거나, 위조되었거나, 만료되었거나, 아직 유효하지 않습니다.",
        "error.forbidden.detail": "%@ 역할이 필요합니다.",
        "error.rate_limited.detail": "메시지가 너무 많습니다. %d초 후에 다시 시도하세요.",
        "error.body_too_large.detail": "요청 본문이 %d바이트를 초과합니다.",
        "error.unsupported_media_type.detail": "본문은 JSON이어야 합니다(Content-Type: application/json).",
        "error.invalid_json.detail": "요청 본문이 유효한 JSON이 아닙니다.",
        "error.json_too_deep.detail": "JSON 본문의 중첩 깊이가 %d단계를 초과합니다.",
        "error.request_timeout.detail": "요청이 제시간에 수신되지 않았습니다.",
        "error.internal_error.detail": "서버가 요청을 완료할 수 없습니다.",
        "error.not_ready.detail": "저장소가 열려 있지 않거나 마이그레이션되지 않았습니다.",
        "error.locale_not_found.detail": "로케일 %@에 대한 텍스트가 없습니다.",
    ]
}
