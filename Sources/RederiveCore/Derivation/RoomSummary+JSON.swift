extension RoomSummary {
    /// The summary JSON as UTF-8 bytes: one compact object, keys in the order of `fields` (the
    /// spec table's), doubles rounded to 2 decimals as the app does, `object_categories` keys
    /// sorted by their UTF-8 bytes.
    ///
    /// Hand-written rather than `JSONEncoder`: it runs for every record (~20k/s) and must be
    /// byte-stable across platforms. A loop over the field table with one switch on the kind,
    /// each key's bytes made once. A non-finite number (never produced by `SummaryDeriver`,
    /// which fails a room with any value that is not finite once rounded) is written as `null`
    /// to stay valid JSON.
    public func jsonBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512 + floorPolygon2D.count * 32)
        out.append(UInt8(ascii: "{"))
        // Rows read in place: copying each row out of the table would retain and release its
        // five references per field per record.
        Self.fields.withUnsafeBufferPointer { fields in
            for i in fields.indices {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: fields[i].quotedKey)
                switch fields[i].value {
                case .count(let read): Self.appendInt(read(self), to: &out)
                case .float(let read): Self.appendRounded(read(self), to: &out)
                case .string(let read): JSONText.appendString(read(self), to: &out)
                case .structured(let write): write(self, &out)
                }
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The summary JSON as a `String` (see `jsonBytes()`).
    public func jsonString() -> String {
        String(decoding: jsonBytes(), as: UTF8.self)
    }

    /// Rounds to 2 decimals as the app does, `(v * 100).rounded() / 100`, with negative
    /// zero normalised to 0 so "-0.0" is never written.
    public static func roundedForJSON(_ value: Double) -> Double {
        let r = (value * 100).rounded() / 100
        return r == 0 ? 0 : r
    }

    /// Appends literal text.
    static func appendRaw(_ s: StaticString, to out: inout [UInt8]) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// Appends `items` between `open` and `close` (`[`/`]`, `{`/`}`), separated by commas, each
    /// written by `element`: the structured fields' writers (inlined, as the loop it stands for).
    @inline(__always)
    static func appendList<Items: Sequence>(
        _ items: Items, _ open: Unicode.Scalar, _ close: Unicode.Scalar, to out: inout [UInt8],
        _ element: (Items.Element, inout [UInt8]) -> Void
    ) {
        out.append(UInt8(ascii: open))
        var first = true
        for item in items {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            element(item, &out)
        }
        out.append(UInt8(ascii: close))
    }

    /// Appends a whole number as `String(value)` writes it, without making the String.
    static func appendInt(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude), to: &out)
    }

    /// Appends `value`'s decimal digits, most significant first (at least one).
    private static func appendDigits(_ value: UInt64, to out: inout [UInt8]) {
        // From a small stack buffer, filled from its end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = value
            var count = 0
            repeat {
                digits[19 - count] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
                count += 1
            } while n > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
        }
    }

    /// Appends a number rounded for the JSON (`roundedForJSON`), `null` when not finite.
    static func appendRounded(_ value: Double, to out: inout [UInt8]) {
        let hundredths = (value * 100).rounded()
        // Under 10^15 hundredths the rounded value's shortest round-tripping form (Swift's
        // description) is those hundredths written out, as `appendHundredths` does without
        // making a String: doubles there lie far closer together than 0.01, so no shorter
        // decimal reads back as the same double.
        if abs(hundredths) < 1e15 {
            appendHundredths(Int64(hundredths), to: &out)
            return
        }
        let r = roundedForJSON(value)
        guard r.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        // Swift's description is the shortest round-tripping form: 11.81, 2.4, 0.0.
        out.append(contentsOf: r.description.utf8)
    }

    /// Appends `hundredths` / 100 as Swift's description writes a double with at most two
    /// decimals: `11.81`, `2.4`, `0.05`, `-3.0`, `0.0` (never `-0.0`).
    static func appendHundredths(_ hundredths: Int64, to out: inout [UInt8]) {
        if hundredths < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = hundredths.magnitude
        let (whole, fraction) = magnitude.quotientAndRemainder(dividingBy: 100)
        appendDigits(whole, to: &out)
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10))
        if fraction % 10 != 0 { out.append(UInt8(ascii: "0") + UInt8(fraction % 10)) }
    }
}
