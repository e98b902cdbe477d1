extension BundledStrings {
    /// Japanese (ja). Same keys and format placeholders as `en`, which is the fallback.
    static let ja: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "よろしいですか？",
        "message.moderation.alert.message": "あなたのコメントを他の人がどう感じるかを考え、コミュニティガイドラインを必ず守ってください。",
        "message.moderation.alert.resend": "このまま送信",
        "message.moderation.alert.edit": "メッセージを編集",
        "message.moderation.alert.delete": "メッセージを削除",
        "message.bounce.title": "メッセージが拒否されました",
        "message.actions.flag": "メッセージを通報",
        "message.actions.flag.confirmation-title": "メッセージを通報",
        "message.actions.flag.confirmation-message": "詳しく確認するため、このメッセージのコピーをモデレーターに送信しますか？",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "通報",
        "message.actions.edit": "メッセージを編集",
        "message.actions.delete": "メッセージを削除",
        "message.actions.delete.confirmation-title": "メッセージを削除",
        "message.actions.delete.confirmation-message": "このメッセージを完全に削除してもよろしいですか？",
        "message.actions.delete.confirmation-button": "削除",
        "message.actions.resend": "このまま送信",
        "message.deleted.text": "このメッセージは削除されました。",

        // Problem titles, by status.
        "error.400.title": "不正なリクエスト",
        "error.401.title": "認証が必要です",
        "error.403.title": "アクセス禁止",
        "error.404.title": "見つかりません",
        "error.405.title": "許可されていないメソッド",
        "error.408.title": "リクエストタイムアウト",
        "error.409.title": "競合",
        "error.413.title": "コンテンツが大きすぎます",
        "error.414.title": "URIが長すぎます",
        "error.415.title": "サポートされていないメディアタイプ",
        "error.417.title": "期待された条件を満たせません",
        "error.422.title": "処理できないコンテンツ",
        "error.429.title": "リクエストが多すぎます",
        "error.431.title": "リクエストヘッダーフィールドが大きすぎます",
        "error.500.title": "サーバー内部エラー",
        "error.501.title": "未実装",
        "error.503.title": "サービス利用不可",
        "error.505.title": "サポートされていないHTTPバージョン",

        // Problem details, by code.
        "error.not_found.detail": "このパスには何もありません。",
        "error.method_not_allowed.detail": "ここでは %1$@ は使用できません。使用可能: %2$@。",
        "error.unauthenticated.detail": "Authorization ヘッダーに Bearer トークンが必要です。",
        "error.invalid_token.detail": "トークンの形式が不正か、偽造されているか、期限切れか、まだ有効ではありません。",
        "error.forbidden.detail": "%@ ロールが必要です。",
        "error.rate_limited.detail": "メッセージが多すぎます。%d 秒後にもう一度お試しください。",
        "error.body_too_large.detail": "リクエスト本文が %d バイトを超えています。",
        "error.unsupported_media_type.detail": "本文は JSON である必要があります（Content-Type: application/json）。",
        "error.invalid_json.detail": "リクエスト本文が有効な JSON ではありません。",
        "error.json_too_deep.detail": "JSON 本文のネストが %d 階層を超えています。",
        "error.request_timeout.detail": "リクエストを時間内に受信できませんでした。",
        "error.internal_error.detail": "サーバーはリクエストを完了できませんでした。",
        "error.not_ready.detail": "ストアが開かれていないか、移行されていません。",
        "error.locale_not_found.detail": "ロケール %@ のテキストはありません。",
    ]
}
