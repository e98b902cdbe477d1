// bouncer-chat: a terminal chat client built on BouncerKit alone, to try Bouncer from a shell.
//
//     bouncer-chat --url http://127.0.0.1:8080 --token "$ALICE" --channel messaging:general [--locale de]
//
// It shows the channel's recent messages and new ones as they come, sends each line typed, shows
// a bounced message's alert as a numbered choice, and flags a message with `/flag N`.
import BouncerKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

let usage = """
    usage: bouncer-chat --url URL --token TOKEN [--channel ID] [--locale TAG] [--poll SECONDS]

      --url      the service, e.g. http://127.0.0.1:8080   (or BOUNCER_URL)
      --token    the user's token, from `bouncer token`    (or BOUNCER_TOKEN)
      --channel  the channel, messaging:general by default
      --locale   the language of the service's texts, en by default
      --poll     how often new messages are read, 1 second by default

    In the chat: type a line to send it; /flag N [reason] flags message #N; /help; /quit.
    """

struct Options {
    var url = ProcessInfo.processInfo.environment["BOUNCER_URL"] ?? ""
    var token = ProcessInfo.processInfo.environment["BOUNCER_TOKEN"] ?? ""
    var channel = "messaging:general"
    var locale = "en"
    var poll = 1.0

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" { Self.exit(usage, status: 0) }
            guard let value = rest.popFirst() else { Self.exit("\(flag) needs a value\n\n\(usage)") }
            switch flag {
            case "--url": url = value
            case "--token": token = value
            case "--channel": channel = value
            case "--locale": locale = value
            case "--poll": poll = Double(value) ?? poll
            default: Self.exit("unknown flag \(flag)\n\n\(usage)")
            }
        }
        if url.isEmpty || token.isEmpty { Self.exit("--url and --token are needed\n\n\(usage)") }
    }

    static func exit(_ text: String, status: Int32 = 2) -> Never {
        FileHandle.standardError.write(Data((text + "\n").utf8))
        Glibc.exit(status)
    }
}

/// The lines typed, read on a thread of their own.
let input = AsyncStream<String> { continuation in
    Thread {
        while let line = readLine() { continuation.yield(line) }
        continuation.finish()
    }.start()
}

/// The messages shown, numbered in the order they appeared, so `/flag N` can name one.
actor Screen {
    private var numbers: [String: Int] = [:]
    private var ids: [String] = []

    /// Shows `message` unless it was shown before; with `again`, shows it anew (its state changed).
    func show(_ message: Message, again: Bool = false) {
        if numbers[message.id] != nil && !again { return }
        let number = numbers[message.id] ?? (ids.count + 1)
        if numbers[message.id] == nil {
            numbers[message.id] = number
            ids.append(message.id)
        }
        let state = message.state == .delivered ? "" : " (\(message.state.rawValue))"
        say("#\(number) \(message.userID): \(message.text)\(state)")
    }

    func id(_ number: Int) -> String? { ids.indices.contains(number - 1) ? ids[number - 1] : nil }
}

/// Writes a line (or a prompt) at once, whatever the output is. (Not through stdio: flushing
/// every stream would wait for the lock on stdin that the reading thread holds.)
func say(_ text: String, terminator: String = "\n") {
    FileHandle.standardOutput.write(Data((text + terminator).utf8))
}

@MainActor
final class Chat {
    let client: BouncerClient
    let channel: String
    let screen = Screen()
    var lines: AsyncStream<String>.Iterator

    init(client: BouncerClient, channel: String, lines: AsyncStream<String>.Iterator) {
        self.client = client
        self.channel = channel
        self.lines = lines
    }

    /// The next line typed, after `prompt`; nil at the end of input.
    func ask(_ prompt: String) async -> String? {
        say(prompt, terminator: "")
        return await nextLine()
    }

    /// The next line typed; nil at the end of input.
    func nextLine() async -> String? {
        // The iterator is a handle on the stream: a copy reads the same lines.
        var iterator = lines
        defer { lines = iterator }
        return await iterator.next(isolation: #isolation)
    }

    func run() async {
        while let line = await nextLine() {
            let text = line.trimmingCharacters(in: .whitespaces)
            do {
                switch text {
                case "": continue
                case "/quit": return
                case "/help": say(usage)
                case _ where text.hasPrefix("/flag"): try await flag(text)
                default: try await send(text)
                }
            } catch {
                say("! \(error)")
            }
        }
    }

    func send(_ text: String) async throws {
        let message = try await client.send(text, to: channel)
        await screen.show(message)
        guard message.isBounced else { return }
        if let notice = message.notice { say("! \(notice)") }
        guard let alert = message.alert else { return }
        try await choose(alert, for: message)
    }

    /// The bounce alert as a numbered choice: Send Anyway, Edit, Delete.
    func choose(_ alert: BouncedMessageAlert, for message: Message) async throws {
        say(alert.title)
        say(alert.message)
        for (index, action) in alert.actions.enumerated() { say("  \(index + 1)) \(action.title)") }
        var choice: AlertAction?
        while choice == nil {
            guard let answer = await ask("Choose 1-\(alert.actions.count): ") else { return }
            if let number = Int(answer.trimmingCharacters(in: .whitespaces)), alert.actions.indices.contains(number - 1) {
                choice = alert.actions[number - 1]
            }
        }
        switch choice!.id {
        case .resend:
            await screen.show(try await client.sendAnyway(message.id), again: true)
        case .edit:
            guard let text = await ask("New text: "), !text.isEmpty else { return }
            let edited = try await client.edit(message.id, text: text)
            await screen.show(edited, again: true)
            if edited.isBounced, let alert = edited.alert { try await choose(alert, for: edited) }
        case .delete:
            try await client.delete(message.id)
            say("Deleted.")
        case .other(let id):
            say("! \(id) is not something bouncer-chat can do")
        }
    }

    /// `/flag N [reason]`: the server's confirmation texts, then y/n.
    func flag(_ command: String) async throws {
        let words = command.split(separator: " ").map(String.init)
        guard words.count >= 2, let number = Int(words[1]), let id = await screen.id(number) else {
            say("usage: /flag N [reason], N a message's number")
            return
        }
        guard let action = try await client.actions(for: id).first(where: { $0.id == "flag" }) else {
            say("! #\(number) cannot be flagged")
            return
        }
        let confirmation = action.confirmation
        say(confirmation?.title ?? action.title)
        if let message = confirmation?.message { say(message) }
        guard let answer = await ask("\(confirmation?.button ?? action.title)? (y/n) "), answer.lowercased().hasPrefix("y") else {
            say("Not flagged.")
            return
        }
        let flag = try await client.flag(id, reason: FlagReason(rawValue: words.count > 2 ? words[2] : "other"))
        say("Flagged #\(number) (\(flag.reason.rawValue)).")
    }
}

/// Reads the newest page now and then, and shows what was not shown yet.
func follow(_ client: BouncerClient, _ channel: String, _ screen: Screen, every seconds: Double) async {
    while !Task.isCancelled {
        if let page = try? await client.messages(in: channel, limit: 50) {
            for message in page.messages { await screen.show(message) }
        }
        try? await Task.sleep(for: .seconds(seconds))
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
guard let url = URL(string: options.url) else { Options.exit("\(options.url) is not a URL") }
let client = BouncerClient(baseURL: url, tokenProvider: StaticToken(options.token), locale: options.locale)
let chat = Chat(client: client, channel: options.channel, lines: input.makeAsyncIterator())
say("bouncer-chat: \(options.channel) at \(url.absoluteString) (/help for commands)")
do {
    let recent = try await client.messages(in: options.channel, limit: 20)
    for message in recent.messages { await chat.screen.show(message) }
} catch {
    Options.exit("bouncer-chat: \(error)", status: 1)
}
let follower = Task { [screen = chat.screen] in await follow(client, options.channel, screen, every: options.poll) }
await chat.run()
follower.cancel()
