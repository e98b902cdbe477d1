@testable import BouncerKit
import Foundation
import Testing
import TestSupport

/// BouncerKit against the real binary: an app's flows, end to end.
@Suite struct BouncerKitTests {
    /// A clean message is delivered with no alert; a bounced one comes back to its author with
    /// the alert in the client's language, the matched words, and Send Anyway offered because
    /// the rule is `bounce_flag`.
    @Test func aBounceComesBackWithItsAlertInGerman() async throws {
        let h = try await KitHarness.start()
        try await h.rule("pear", "bounce_flag")
        let alice = h.client("alice", locale: "de")

        let clean = try await alice.send("hallo zusammen", to: "messaging:general", id: "clean-1")
        #expect(clean.id == "clean-1" && clean.state == .delivered && clean.type == .regular)
        #expect(clean.alert == nil && clean.notice == nil && clean.moderation == nil)

        let bounced = try await alice.send("eine pear bitte", to: "messaging:general", id: "bounced-1")
        #expect(bounced.state == .bounced && bounced.type == .error && bounced.isBounced)
        #expect(bounced.notice == "Nachricht wurde abgelehnt")
        let alert = try #require(bounced.alert)
        #expect(alert.title == "Bist du sicher?")
        #expect(alert.message.hasPrefix("Überleg dir"))
        #expect(alert.actions.map(\.id) == [.resend, .edit, .delete])
        #expect(alert.actions.map(\.title) == ["Trotzdem senden", "Nachricht bearbeiten", "Nachricht löschen"])
        #expect(alert.action(.resend)?.title == "Trotzdem senden")
        let moderation = try #require(bounced.moderation)
        #expect(moderation.action == "bounce_flag" && moderation.originalText == "eine pear bitte")
        #expect(moderation.rules.first?.matched.first.map { [$0.text, String($0.start), String($0.end)] } == ["pear", "5", "9"])

        // The same message read again carries the alert in whichever language is asked.
        let english = try await h.client("alice", locale: "en").message("bounced-1")
        #expect(english.alert?.title == "Are you sure?" && english.notice == "Message was bounced")
        // Nobody else sees a bounced message.
        await #expect(throws: BouncerError.self) { try await h.client("bob").message("bounced-1") }
    }

    /// Send Anyway, edit and delete, each doing what the rule behind the bounce says.
    @Test func sendAnywayEditAndDelete() async throws {
        let h = try await KitHarness.start()
        try await h.rule("pear", "bounce_flag")
        try await h.rule("plum", "bounce")
        let alice = h.client("alice")
        let bob = h.client("bob")

        // bounce_flag: Send Anyway delivers it, flagged for moderators.
        _ = try await alice.send("a pear", to: "messaging:general", id: "p1")
        let resent = try await alice.sendAnyway("p1")
        #expect(resent.state == .delivered && resent.alert == nil)
        #expect(try await bob.message("p1").text == "a pear")
        let notBouncedError = await failure("a delivered message was sent anyway") { try await alice.sendAnyway("p1") }
        #expect(isCase(notBouncedError, BouncerError.notBounced), "\(String(describing: notBouncedError))")
        #expect(notBouncedError?.problem?.status == 409)

        // A plain bounce offers no Send Anyway, and sending anyway leaves it bounced.
        let plum = try await alice.send("a plum", to: "messaging:general", id: "p2")
        #expect(plum.alert?.actions.map(\.id) == [.edit, .delete])
        #expect(try await alice.handle(for: "p2").sendAnyway().state == .bounced)

        // An edit is the way out of a bounce.
        let edited = try await alice.edit("p2", text: "a peach")
        #expect(edited.state == .delivered && edited.edited && edited.text == "a peach" && edited.alert == nil)
        // A delivered message whose new text would bounce stays as it was: 422 with the alert.
        let editRefusedError = await failure("the edit was not refused") { try await alice.edit("p2", text: "a plum again") }
        #expect(isCase(editRefusedError, BouncerError.editRefused), "\(String(describing: editRefusedError))")
        #expect(editRefusedError?.problem?.status == 422)
        #expect(editRefusedError?.problem?.alert?.title == "Are you sure?")
        #expect(editRefusedError?.problem?.moderation?.rules.first?.matched.first?.text == "plum")
        #expect(try await bob.message("p2").text == "a peach")

        // Delete takes a bounced message back: it is gone, even for its author.
        _ = try await alice.send("one more plum", to: "messaging:general", id: "p3")
        try await alice.delete("p3")
        let messageNotFoundError = await failure("a deleted bounced message was still there") { try await alice.message("p3") }
        #expect(isCase(messageNotFoundError, BouncerError.messageNotFound), "\(String(describing: messageNotFoundError))")
        // A delivered one becomes a tombstone.
        try await alice.handle(for: "p2").delete()
        let tombstone = try await bob.message("p2")
        #expect(tombstone.state == .deleted && tombstone.type == .deleted && tombstone.text.isEmpty)
    }

    /// The flag action comes with its confirmation texts in the reader's language; a flag is
    /// filed once, can be withdrawn, and is refused on one's own message.
    @Test func flagWithItsConfirmationAndWithdraw() async throws {
        let h = try await KitHarness.start()
        let alice = h.client("alice")
        let bob = h.client("bob", locale: "de")
        _ = try await alice.send("buy cheap watches", to: "messaging:general", id: "m1")

        let actions = try await bob.actions(for: "m1")
        let flag = try #require(actions.first { $0.id == "flag" })
        #expect(flag.title == "Nachricht melden" && flag.destructive)
        #expect(flag.confirmation?.title == "Nachricht melden")
        #expect(flag.confirmation?.message.hasPrefix("Möchtest du eine Kopie dieser Nachricht") == true)
        #expect(flag.confirmation?.button == "Melden")
        // The author gets edit and delete, not flag.
        #expect(try await alice.actions(for: "m1").map(\.id) == ["edit", "delete"])

        let filed = try await bob.handle(for: "m1").flag(reason: .spam, details: "selling things")
        #expect(filed.messageID == "m1" && filed.reporterID == "bob" && filed.reason == .spam && filed.state == "open")
        #expect(filed.details == "selling things")
        // Flagged once: the menu no longer offers it, and flagging again answers the same flag.
        #expect(try await bob.actions(for: "m1").contains { $0.id == "flag" } == false)
        #expect(try await bob.flag("m1", reason: .spam).id == filed.id)

        try await bob.withdrawFlag("m1")
        #expect(try await bob.actions(for: "m1").contains { $0.id == "flag" })
        let flagNotFoundError = await failure("a flag was withdrawn twice") { try await bob.withdrawFlag("m1") }
        #expect(isCase(flagNotFoundError, BouncerError.flagNotFound), "\(String(describing: flagNotFoundError))")
        #expect(flagNotFoundError?.problem?.status == 404 && flagNotFoundError?.problem?.detail.isEmpty == false)
        let ownMessageError = await failure("the author flagged their own message") { try await alice.flag("m1", reason: .spam) }
        #expect(isCase(ownMessageError, BouncerError.ownMessage), "\(String(describing: ownMessageError))")
        #expect(ownMessageError?.problem?.status == 403)
        let invalidFieldError = await failure("an unknown reason was taken") { try await bob.flag("m1", reason: "no_such_reason") }
        #expect(isCase(invalidFieldError, BouncerError.invalidField), "\(String(describing: invalidFieldError))")
        #expect(invalidFieldError?.problem?.status == 400)
    }

    /// A channel read page by page, newest page first, each in chronological order: every message
    /// once, and the sequence ends after the last page.
    @Test func aChannelPageByPage() async throws {
        let h = try await KitHarness.start()
        let alice = h.client("alice")
        for index in 1...7 { _ = try await alice.send("message \(index)", to: "messaging:paging", id: "m\(index)") }
        _ = try await alice.send("elsewhere", to: "messaging:other", id: "x1")

        let first = try await alice.messages(in: "messaging:paging", limit: 3)
        #expect(first.messages.map(\.id) == ["m5", "m6", "m7"])
        let cursor = try #require(first.nextCursor)
        let second = try await alice.messages(in: "messaging:paging", limit: 3, cursor: cursor)
        #expect(second.messages.map(\.id) == ["m2", "m3", "m4"])

        var pages: [[String]] = []
        for try await page in alice.pages(of: "messaging:paging", limit: 3) { pages.append(page.messages.map(\.id)) }
        #expect(pages == [["m5", "m6", "m7"], ["m2", "m3", "m4"], ["m1"]])
        let cursorError = await failure("a made-up cursor was taken") {
            try await alice.messages(in: "messaging:paging", limit: 3, cursor: "not-a-cursor")
        }
        #expect(isCase(cursorError, BouncerError.invalidCursor), "\(String(describing: cursorError))")
    }

    /// With `bounced_messages_alert_actions_enabled` off, a bounced message carries its notice
    /// but no alert, anywhere, and its actions are the regular list.
    @Test func theAlertIsAbsentWhenAnAdminTurnsItOff() async throws {
        let h = try await KitHarness.start()
        try await h.rule("pear", "bounce_flag")
        let alice = h.client("alice", locale: "de")
        let before = try await alice.send("a pear", to: "messaging:general", id: "a1")
        #expect(before.alert != nil)
        #expect(try await alice.actions(for: "a1").map(\.id) == ["resend", "edit", "delete"])

        let patch = try await h.raw("PATCH", "/v1/config", as: "root", body: #"{"bounced_messages_alert_actions_enabled": false}"#)
        #expect(patch.status == 200)

        let after = try await alice.send("another pear", to: "messaging:general", id: "a2")
        #expect(after.state == .bounced && after.notice == "Nachricht wurde abgelehnt")
        #expect(after.alert == nil)
        #expect(try await alice.message("a1").alert == nil, "texts are rendered for each request, not frozen at send time")
        #expect(try await alice.actions(for: "a2").map(\.id) == ["edit", "delete"])
        _ = try await alice.send("fine", to: "messaging:general", id: "a3")
        let editRefusedError = await failure("the edit was not refused") { try await alice.edit("a3", text: "a pear") }
        #expect(isCase(editRefusedError, BouncerError.editRefused), "\(String(describing: editRefusedError))")
        #expect(editRefusedError?.problem?.alert == nil && editRefusedError?.problem?.moderation != nil)
    }

    /// Live events through the stream: the connection is cut mid-stream and the service is
    /// unreachable while more events commit; the stream reconnects with `Last-Event-ID` and
    /// delivers every event once, in order.
    @Test func eventsResumeAfterADroppedConnectionWithNothingMissedAndNothingTwice() async throws {
        let h = try await KitHarness.start()
        try await h.rule("pear", "bounce")
        let proxy = try FaultyProxy(upstreamPort: h.service.port)
        defer { proxy.close() }
        let moderator = h.client("mod", via: proxy)
        let alice = h.client("alice")

        let received = Collected<BouncerEvent>()
        let reader = Task {
            do {
                for try await event in moderator.events(after: 0, reconnectDelay: .milliseconds(100)) { received.append(event) }
            } catch {
                received.fail(error)
            }
        }
        defer { reader.cancel() }
        for index in 1...3 { _ = try await alice.send("pear \(index)", to: "messaging:general", id: "b\(index)") }
        #expect(try await waitUntil(.seconds(10)) { received.all.count == 4 }, "rule.changed and three bounces")

        proxy.refuseConnections(true)
        proxy.dropConnections()
        for index in 4...6 { _ = try await alice.send("pear \(index)", to: "messaging:general", id: "b\(index)") }
        let banned = try await h.raw("POST", "/v1/users/bob/ban", as: "mod", body: #"{"reason":"spam"}"#)
        #expect(banned.status == 201)
        // Let the stream try (and fail) to reconnect while the service is unreachable.
        #expect(try await waitUntil(.seconds(10)) { proxy.refused >= 1 })
        #expect(proxy.connections == 1 && received.all.count == 4)
        proxy.refuseConnections(false)

        #expect(try await waitUntil(.seconds(10)) { received.all.count >= 8 }, "\(received.all.map(\.type)) \(String(describing: received.error))")
        let events = received.all
        #expect(events.map(\.type) == ["rule.changed"] + Array(repeating: "message.bounced", count: 6) + ["user.banned"])
        #expect(events.map(\.id) == Array(1...8), "nothing missed, nothing twice")
        #expect(events.compactMap { $0.message?.id } == ["b1", "b2", "b3", "b4", "b5", "b6"])
        #expect(proxy.connections == 2)
        let resumed = try #require(proxy.requests.last)
        #expect(resumed.hasPrefix("GET /v1/events/stream"))
        #expect(resumed.lowercased().contains("last-event-id: 4"), "\(resumed)")
        // Nothing more arrives afterwards (no repeat of the events sent before the cut).
        try await Task.sleep(for: .milliseconds(300))
        #expect(received.all.count == 8 && received.error == nil)
    }

    /// A user's token cannot read the moderators' stream: the stream ends with the typed error
    /// instead of reconnecting for ever.
    @Test func theEventStreamEndsWithATypedErrorForAUser() async throws {
        let h = try await KitHarness.start()
        do {
            for try await _ in h.client("alice").events() {}
            Issue.record("the stream ended without an error")
        } catch {
            let refusal = error as? BouncerError
            #expect(isCase(refusal, BouncerError.forbidden), "\(error)")
            #expect(refusal?.status == 403)
        }
    }

    /// Texts: the app's own strings win, then the server's for the device's language (with its
    /// admins' overrides), then BouncerKit's bundled defaults, then the key itself.
    @Test func theLocalizationProvidersFallbackOrder() async throws {
        let h = try await KitHarness.start()
        let put = try await h.raw("PUT", "/v1/localization/de", as: "root", body: #"{"strings":{"message.bounce.title":"Vom Server abgelehnt"}}"#)
        #expect(put.status == 200)
        let texts = LocalizationProvider(locale: "de", appStrings: .dictionary([LocalizationKey.alertTitle: "Wirklich senden?"]),
                                         client: h.client("alice", locale: "de"))
        // Before the server's texts are loaded: the app's, else the bundled English ones.
        #expect(texts.text(LocalizationKey.alertTitle) == ("Wirklich senden?", .app))
        #expect(texts.text(LocalizationKey.bounceNotice) == ("Message was bounced", .bundled))

        #expect(await texts.load())
        #expect(texts.text(LocalizationKey.alertTitle) == ("Wirklich senden?", .app), "the app's text wins over the server's")
        #expect(texts.text(LocalizationKey.bounceNotice) == ("Vom Server abgelehnt", .server), "the admin's override")
        #expect(texts.text(LocalizationKey.alertResend) == ("Trotzdem senden", .server))
        #expect(texts[LocalizationKey.flagConfirmationButton] == "Melden")
        #expect(texts.text("app.no.such.key") == ("app.no.such.key", .missing))

        // The server's alert, with the app's own words where it has them.
        let alert = BouncedMessageAlert(title: "Bist du sicher?", message: "Überleg dir ...",
                                        actions: [AlertAction(id: .edit, title: "Nachricht bearbeiten")])
        #expect(texts.localized(alert).title == "Wirklich senden?")
        #expect(texts.localized(alert).actions.first?.title == "Nachricht bearbeiten")

        // An app's bundle: the locale's .lproj, else its language's.
        let bundleDirectory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: bundleDirectory.url.appendingPathComponent("de.lproj"), withIntermediateDirectories: true)
        try bundleDirectory.write("de.lproj/Localizable.strings", "/* the app's */\n\"message.moderation.alert.edit\" = \"Ändern\";\n")
        let bundle = try #require(Bundle(path: bundleDirectory.url.path))
        let fromBundle = LocalizationProvider(locale: "de-AT", appStrings: .bundle(bundle), client: h.client("alice", locale: "de-AT"))
        #expect(await fromBundle.load())
        #expect(fromBundle.text(LocalizationKey.alertEdit) == ("Ändern", .app))
        #expect(fromBundle.text(LocalizationKey.alertDelete) == ("Nachricht löschen", .server))

        // The service out of reach: the bundled defaults.
        let proxy = try FaultyProxy(upstreamPort: h.service.port)
        proxy.close()
        let offline = LocalizationProvider(locale: "de", client: h.client("alice", locale: "de", via: proxy, retryPolicy: .none))
        #expect(await offline.load() == false)
        #expect(offline.text(LocalizationKey.alertResend) == ("Send Anyway", .bundled))
    }

    /// Each problem code arrives as its own case, with the status and the localized texts.
    @Test func errorsAreTypedValues() async throws {
        let h = try await KitHarness.start()
        let alice = h.client("alice", locale: "de")
        let messageNotFoundError = await failure("a message that does not exist was read") { try await alice.message("no-such-message") }
        #expect(isCase(messageNotFoundError, BouncerError.messageNotFound), "\(String(describing: messageNotFoundError))")
        let notFound = try #require(messageNotFoundError?.problem)
        #expect(notFound.status == 404 && notFound.code == "message_not_found" && !notFound.title.isEmpty)
        #expect(messageNotFoundError?.problem?.requestID?.isEmpty == false)
        _ = try await alice.send("hello", to: "messaging:general", id: "e1")
        let notAuthorError = await failure("someone else edited the message") { try await h.client("bob").edit("e1", text: "mine now") }
        #expect(isCase(notAuthorError, BouncerError.notAuthor), "\(String(describing: notAuthorError))")
        #expect(notAuthorError?.problem?.status == 403)
        let idConflictError = await failure("a client id was reused with another text") { try await h.client("alice").send("hello again", to: "messaging:general", id: "e1") }
        #expect(isCase(idConflictError, BouncerError.idConflict), "\(String(describing: idConflictError))")
        #expect(idConflictError?.problem?.status == 409)

        #expect(try await h.raw("POST", "/v1/users/alice/ban", as: "mod", body: #"{"reason":"spam"}"#).status == 201)
        let userBannedError = await failure("a banned user sent a message") { try await alice.send("still here?", to: "messaging:general") }
        #expect(isCase(userBannedError, BouncerError.userBanned), "\(String(describing: userBannedError))")
        #expect(userBannedError?.problem?.status == 403 && userBannedError?.problem?.code == "user_banned")

        let forged = BouncerClient(baseURL: h.baseURL, tokenProvider: StaticToken("not.a.token"))
        let invalidTokenError = await failure("a forged token was taken") { try await forged.message("e1") }
        #expect(isCase(invalidTokenError, BouncerError.invalidToken), "\(String(describing: invalidTokenError))")
        #expect(invalidTokenError?.problem?.status == 401)
        // A code this version does not know keeps everything the service said.
        let unknown = BouncerError(Problem(status: 418, title: "Teapot", detail: "short and stout", code: "brewing"))
        #expect(unknown == .unknown(code: "brewing", problem: Problem(status: 418, title: "Teapot", detail: "short and stout", code: "brewing")))
        #expect(unknown.status == 418 && unknown.code == "brewing")
    }

    /// A send whose answer is lost is tried again with the same client message id, and the
    /// service stores it once; a 503 with `Retry-After` is waited out. Nothing else is retried.
    @Test func onlyASendIsRetriedAndItIsStoredOnce() async throws {
        let h = try await KitHarness.start()
        let proxy = try FaultyProxy(upstreamPort: h.service.port)
        defer { proxy.close() }
        let alice = h.client("alice", via: proxy, retryPolicy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(50)))

        proxy.inject(.dropAnswer)
        let sent = try await alice.send("hello once", to: "messaging:general", id: "r1")
        #expect(sent.id == "r1" && sent.state == .delivered)
        #expect(proxy.requestLines.filter { $0.hasPrefix("POST /v1/channels/messaging:general/messages") }.count == 2)
        #expect(try await h.channelIDs() == ["r1"], "stored once")

        proxy.inject(.unavailable(retryAfter: 1))
        let started = ContinuousClock.now
        let second = try await alice.send("hello twice", to: "messaging:general", id: "r2")
        #expect(second.id == "r2" && ContinuousClock.now - started >= .seconds(1), "Retry-After was waited out")
        #expect(try await h.channelIDs() == ["r1", "r2"])

        // A Retry-After past the policy's longest is given up on at once.
        proxy.inject(.unavailable(retryAfter: 60))
        let storeUnavailableError = await failure("the send went through") { try await alice.send("later", to: "messaging:general", id: "r3") }
        #expect(isCase(storeUnavailableError, BouncerError.storeUnavailable), "\(String(describing: storeUnavailableError))")
        #expect(storeUnavailableError?.problem?.retryAfter == 60)

        // An edit and a flag are not retried: their lost answers surface as connection errors.
        let before = proxy.requests.count
        proxy.inject(.dropAnswer)
        let editError = await failure("the edit's answer arrived") { try await alice.edit("r1", text: "hello edited") }
        #expect(isConnectionError(editError), "\(String(describing: editError))")
        #expect(proxy.requests.count == before + 1)
        let bob = h.client("bob", via: proxy, retryPolicy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(50)))
        proxy.inject(.dropAnswer)
        let flagError = await failure("the flag's answer arrived") { try await bob.flag("r1", reason: .spam) }
        #expect(isConnectionError(flagError), "\(String(describing: flagError))")
        #expect(proxy.requests.count == before + 2)

        // Without retries, a lost answer is the caller's to handle.
        let once = h.client("alice", via: proxy, retryPolicy: .none)
        proxy.inject(.dropAnswer)
        await #expect(throws: BouncerError.self) { try await once.send("no retry", to: "messaging:general", id: "r4") }
        #expect(try await h.channelIDs() == ["r1", "r2", "r4"], "the service stored it; only the answer was lost")
    }
}

/// The error `body` throws; records an issue (saying `what` happened instead) when it throws none.
func failure<T>(_ what: String, sourceLocation: SourceLocation = #_sourceLocation,
                _ body: () async throws -> T) async -> BouncerError? {
    do {
        _ = try await body()
        Issue.record(Comment(rawValue: what), sourceLocation: sourceLocation)
        return nil
    } catch {
        guard let error = error as? BouncerError else {
            Issue.record("not a BouncerError: \(error)", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }
}

/// Whether `error` is the case `make` builds (`BouncerError.userBanned`, say).
func isCase(_ error: BouncerError?, _ make: (Problem) -> BouncerError) -> Bool {
    guard let error, let problem = error.problem else { return false }
    return error == make(problem)
}

func isConnectionError(_ error: BouncerError?) -> Bool {
    if case .connection? = error { return true }
    return false
}

/// The Server-Sent Events reader, fed as the network cuts the stream.
@Suite struct ServerSentEventParserTests {
    static func read(_ parser: inout ServerSentEventParser, _ bytes: ArraySlice<UInt8>) -> [String] {
        parser.feed(bytes).map { "\($0.id ?? "-") \($0.type) \($0.data)" }
    }

    /// Line ends of every kind, comments, `retry:`, multi-line data, an id kept for the next
    /// event: the same events however the bytes are cut.
    @Test func eventsCutAnywhereReadTheSame() {
        let bytes = Array(": events of Bouncer\r\nretry: 2000\r\n\r\nid: 7\nevent: message.flagged\ndata: {\"a\":1}\n\n: keep-alive\n\rid: 8\rdata: one\rdata:two\r\rdata: three\n\n".utf8)
        var whole = ServerSentEventParser()
        let expected = Self.read(&whole, bytes[...])
        #expect(expected == ["7 message.flagged {\"a\":1}", "8 message one\ntwo", "8 message three"])
        #expect(whole.retryMilliseconds == 2000 && whole.lastEventID == "8")
        for cut in 1..<bytes.count {
            var parser = ServerSentEventParser()
            #expect(Self.read(&parser, bytes[..<cut]) + Self.read(&parser, bytes[cut...]) == expected, "cut at \(cut)")
        }
    }
}
