import JSON

/// A model as a file: a first line naming the format, a line of JSON (what the model says of
/// itself, its hashing and each attribute's bias, calibration and weights' scale), then each
/// attribute's weights as 16-bit integers, little-endian, in the order the JSON lists them. The
/// weights are kept as the model holds them (`HarmModel.Head`).
public enum ModelFile {
    static let magic = "BOUNCER-MODEL 1"
    /// Largest model file read (a 2^24-bucket model with a few attributes).
    public static let maxBytes = 256 << 20

    struct Header: Codable {
        var info: ModelInfo
        var hash_bits: Int
        var heads: [HeadHeader]
    }

    struct HeadHeader: Codable {
        var attribute: String
        var bias: Double
        var calibration: Calibration
        /// A stored integer times this is the weight.
        var scale: Double
    }

    public struct Unreadable: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static func encode(_ model: HarmModel) -> [UInt8] {
        var headers: [HeadHeader] = []
        var body: [UInt8] = []
        body.reserveCapacity(model.heads.count * model.hasher.buckets * 2)
        for head in model.heads {
            headers.append(HeadHeader(attribute: head.attribute, bias: Double(head.bias), calibration: head.calibration, scale: Double(head.scale)))
            for weight in head.weights {
                let bits = UInt16(bitPattern: weight)
                body.append(UInt8(truncatingIfNeeded: bits))
                body.append(UInt8(truncatingIfNeeded: bits >> 8))
            }
        }
        let header = Header(info: model.info, hash_bits: model.hasher.bits, heads: headers)
        // Encoding plain values cannot fail: every number is finite (a NaN weight is refused by training).
        let json = (try? JSONText.encode(header)) ?? []
        return Array((magic + "\n").utf8) + json + [0x0A] + body
    }

    public static func decode(_ bytes: [UInt8]) throws(Unreadable) -> HarmModel {
        guard bytes.count <= maxBytes else { throw Unreadable(description: "a model file is at most \(maxBytes >> 20) MiB") }
        let magicBytes = Array((magic + "\n").utf8)
        guard bytes.starts(with: magicBytes) else { throw Unreadable(description: "not a Bouncer model file (it must begin with \"\(magic)\")") }
        guard let end = bytes[magicBytes.count...].firstIndex(of: 0x0A) else { throw Unreadable(description: "the model file's header has no end") }
        let header: Header
        do {
            header = try StrictJSONParser.parse(Array(bytes[magicBytes.count..<end])).decode(Header.self)
        } catch {
            throw Unreadable(description: "the model file's header cannot be read: \(error)")
        }
        guard (10...24).contains(header.hash_bits) else { throw Unreadable(description: "hash_bits must be from 10 to 24") }
        guard !header.heads.isEmpty, Set(header.heads.map(\.attribute)).count == header.heads.count else {
            throw Unreadable(description: "a model has at least one attribute, each once")
        }
        let hasher = FeatureHasher(bits: header.hash_bits)
        let body = bytes[(end + 1)...]
        guard body.count == header.heads.count * hasher.buckets * 2 else {
            throw Unreadable(description: "the model file has \(body.count) bytes of weights, not the \(header.heads.count * hasher.buckets * 2) its header says")
        }
        var heads: [HarmModel.Head] = []
        var offset = body.startIndex
        for headHeader in header.heads {
            guard headHeader.scale.isFinite, headHeader.scale > 0, headHeader.bias.isFinite, headHeader.calibration.a.isFinite,
                  headHeader.calibration.b.isFinite else { throw Unreadable(description: "\(headHeader.attribute): a number is not finite") }
            let weights = [Int16](unsafeUninitializedCapacity: hasher.buckets) { buffer, count in
                for index in 0..<hasher.buckets {
                    buffer[index] = Int16(bitPattern: UInt16(bytes[offset + 2 * index]) | UInt16(bytes[offset + 2 * index + 1]) << 8)
                }
                count = hasher.buckets
            }
            offset += 2 * hasher.buckets
            heads.append(HarmModel.Head(attribute: headHeader.attribute, weights: weights, scale: Float(headHeader.scale),
                                        bias: Float(headHeader.bias), calibration: headHeader.calibration))
        }
        return HarmModel(hasher: hasher, heads: heads, info: header.info)
    }
}
