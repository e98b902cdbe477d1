/// The service's metric families, each a typed value: a sample names its family by value, not
/// by a string a typo could miss, and carries the labels its family has.
package enum ServiceMetric {
    package static let messages = Counter<OneLabel>("bouncer_messages_total",
                                            "Messages sent, by the verdict of the rules (none, or the deciding action).", label: "verdict")
    package static let ruleMatches = Counter<OneLabel>("bouncer_rule_matches_total",
                                               "Rule matches in messages sent or edited, by the rules' mode (each rule's own: GET /v1/rules/stats).",
                                               label: "mode")
    package static let commitBatchSize = Histogram("bouncer_store_commit_batch_size", "Writes grouped into one committed transaction.",
                                           buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
    package static let commitDuration = Histogram("bouncer_store_commit_duration_seconds", "Time to run and commit one group of writes.")
    package static let checkpointDuration = Histogram("bouncer_store_checkpoint_duration_seconds",
                                              "Time to copy the write-ahead log into the database file, between two groups.")
    package static let channelCopyFailures = Counter<NoLabels>("bouncer_store_channel_copy_failures_total",
                                                       "Batches of new messages that could not be copied into channel_messages (tried again with the next).")
    package static let walFrames = Gauge("bouncer_store_wal_frames", "Frames in the write-ahead log at the last checkpoint.")
    package static let walCheckpointedFrames = Gauge("bouncer_store_wal_checkpointed_frames",
                                             "Of those, frames copied into the database file (fewer while readers still need the rest).")
    package static let storeUnavailable = Counter<NoLabels>("bouncer_store_unavailable_total",
                                                    "Requests refused with 503 store_unavailable: the store's disk was full or failing.")
    package static let storeConflicts = Counter<NoLabels>("bouncer_store_conflicts_total",
                                                  "Requests refused with 503 store_unavailable after their write lost to other instances' (serialization failures, deadlocks) past every retry.")
    package static let rulesCompileDuration = Histogram("bouncer_rules_compile_duration_seconds", "Time to compile a rule set.",
                                                buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10])
    package static let rules = Gauge("bouncer_rules", "Rules in the rule set in force.")
    package static let scoringRequests = Counter<TwoLabels>("bouncer_scoring_requests_total",
                                                          "Calls to the scoring APIs other services' clients use (perspective, openai), by outcome (scored, refused).",
                                                          labels: "api", "outcome")
    package static let scoredTexts = Counter<OneLabel>("bouncer_scored_texts_total", "Texts scored for the scoring APIs (perspective, openai); nothing is stored.",
                                                     label: "api")
    package static let sharedStateReloads = Counter<OneLabel>("bouncer_shared_state_reloads_total",
                                                      "Changes another instance made (rules, settings, overrides, bans) reloaded and put in force here.",
                                                      label: "topic")
    package static let rulesDatabaseBytes = Gauge("bouncer_rules_database_bytes", "Size of the compiled rule databases in force.")
    package static let webhookAttempts = Counter<OneLabel>("bouncer_webhook_attempts_total", "Webhook delivery attempts, by outcome (delivered, failed).",
                                                   label: "outcome")
    package static let matrixCallbacks = Counter<TwoLabels>("bouncer_matrix_callbacks_total",
                                                    "Matrix spam-checker callbacks answered, by what they were (message, edit, redaction, encrypted, other, user_action, unmoderated) and the answer (allowed, refused, unavailable).",
                                                    labels: "kind", "answer")
    package static let matrixHomeserverCalls = Counter<TwoLabels>("bouncer_matrix_homeserver_calls_total",
                                                          "Calls to the Matrix homeserver that carry decisions back (redact, ban, unban), by outcome (done, failed).",
                                                          labels: "call", "outcome")
    package static let integrationCopiesLost = Counter<NoLabels>("bouncer_integration_copies_lost_total",
                                                         "Chat servers' clean messages allowed before their copy was committed, whose copy then could not be kept.")
    package static let rateLedgerFailures = Counter<NoLabels>("bouncer_rate_ledger_failures_total",
                                                      "Sends that failed because the rate rules' shared marks could not be read (PostgreSQL); each was answered 503, never judged as a first message.")
    package static let streamHooks = Counter<OneLabel>("bouncer_stream_hooks_total",
                                               "Stream Before Message Send hooks answered, by what the message became (unchanged, masked, error).",
                                               label: "answer")

    /// Every family, declared at start.
    package static let all: [MetricDefinition] = [
        messages.definition, ruleMatches.definition, commitBatchSize.definition, commitDuration.definition, checkpointDuration.definition,
        channelCopyFailures.definition, walFrames.definition, walCheckpointedFrames.definition, storeUnavailable.definition,
        storeConflicts.definition, rulesCompileDuration.definition, rules.definition, sharedStateReloads.definition,
        rulesDatabaseBytes.definition, scoringRequests.definition, scoredTexts.definition, webhookAttempts.definition, matrixCallbacks.definition, matrixHomeserverCalls.definition,
        integrationCopiesLost.definition, streamHooks.definition, rateLedgerFailures.definition,
    ]
}
