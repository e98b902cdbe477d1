extension BundledStrings {
    /// Chinese (Simplified) (zh-Hans). Same keys and format placeholders as `en`, which is the fallback.
    static let zhHans: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "你确定吗？",
        "message.moderation.alert.message": "请想一想你的评论会给他人带来怎样的感受，并务必遵守我们的社区准则。",
        "message.moderation.alert.resend": "仍然发送",
        "message.moderation.alert.edit": "编辑消息",
        "message.moderation.alert.delete": "删除消息",
        "message.bounce.title": "消息已被拦截",
        "message.actions.flag": "举报消息",
        "message.actions.flag.confirmation-title": "举报消息",
        "message.actions.flag.confirmation-message": "要将此消息的副本发送给管理员做进一步调查吗？",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "举报",
        "message.actions.edit": "编辑消息",
        "message.actions.delete": "删除消息",
        "message.actions.delete.confirmation-title": "删除消息",
        "message.actions.delete.confirmation-message": "确定要永久删除此消息吗？",
        "message.actions.delete.confirmation-button": "删除",
        "message.actions.resend": "仍然发送",
        "message.deleted.text": "此消息已被删除。",

        // Problem titles, by status.
        "error.400.title": "错误请求",
        "error.401.title": "未授权",
        "error.403.title": "禁止访问",
        "error.404.title": "未找到",
        "error.405.title": "方法不允许",
        "error.408.title": "请求超时",
        "error.409.title": "冲突",
        "error.413.title": "内容过大",
        "error.414.title": "URI 过长",
        "error.415.title": "不支持的媒体类型",
        "error.417.title": "预期失败",
        "error.422.title": "无法处理的内容",
        "error.429.title": "请求过多",
        "error.431.title": "请求头字段过大",
        "error.500.title": "服务器内部错误",
        "error.501.title": "未实现",
        "error.503.title": "服务不可用",
        "error.505.title": "HTTP 版本不受支持",

        // Problem details, by code.
        "error.not_found.detail": "此路径下没有任何内容。",
        "error.method_not_allowed.detail": "此处不允许使用 %1$@；允许：%2$@。",
        "error.unauthenticated.detail": "需要在 Authorization 标头中提供 Bearer 令牌。",
        "error.invalid_token.detail": "令牌格式错误、被伪造、已过期或尚未生效。",
        "error.forbidden.detail": "需要 %@ 角色。",
        "error.rate_limited.detail": "消息过多；请在 %d 秒后重试。",
        "error.body_too_large.detail": "请求正文超过 %d 字节。",
        "error.unsupported_media_type.detail": "正文必须是 JSON（Content-Type: application/json）。",
        "error.invalid_json.detail": "请求正文不是有效的 JSON。",
        "error.json_too_deep.detail": "JSON 正文的嵌套超过 %d 层。",
        "error.request_timeout.detail": "未能及时收到请求。",
        "error.internal_error.detail": "服务器无法完成该请求。",
        "error.not_ready.detail": "存储未打开或未迁移。",
        "error.locale_not_found.detail": "没有区域设置 %@ 的文本。",
    ]
}
