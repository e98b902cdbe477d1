/// The release, as `/healthz`, webhooks' `User-Agent` and `bouncer --version` name it.
public enum BouncerVersion {
    public static let current = "0.1.0"
}
