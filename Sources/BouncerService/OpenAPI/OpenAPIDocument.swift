/// The API as OpenAPI 3.1, served at `/openapi.json`: the file `OpenAPI/openapi.json`, embedded
/// in the binary. A test checks it against the routes the service declares: no route
/// undocumented, no documented route missing, each with its role.
enum OpenAPIDocument {
    static let bytes: [UInt8] = EmbeddedFiles.openapi_json
    static var json: String { String(decoding: bytes, as: UTF8.self) }
}
