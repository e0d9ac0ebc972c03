extension RoomSummary {
    /// The summary JSON as UTF-8 bytes: one compact object, keys in the order of `fields` (the
    /// spec table's), doubles rounded to 2 decimals as the app does, `object_categories` keys
    /// sorted by their UTF-8 bytes.
    ///
    /// Hand-written rather than `JSONEncoder`: it runs for every record (~20k/s) and must be
    /// byte-stable across platforms. A loop over the field table with one switch on the kind,
    /// each key written from its literal. A non-finite number (never produced by `SummaryDeriver`,
    /// which fails a room with any value that is not finite once rounded) is written as `null`
    /// to stay valid JSON.
    public func jsonBytes() -> [UInt8] {
        var out = JSONBuffer(capacity: 640 + floorPolygon2D.count * 32)
        write(to: &out)
        return out.bytes()
    }

    /// `jsonBytes()` written through `buffer`, emptied first and left holding the JSON: a
    /// worker's buffer reused record after record, so that the array returned is the record's
    /// one allocation.
    func jsonBytes(reusing buffer: inout JSONBuffer) -> [UInt8] {
        buffer.removeAll()
        write(to: &buffer)
        return buffer.bytes()
    }

    // Appends the summary JSON to `out`.
    private func write(to out: inout JSONBuffer) {
        out.append(UInt8(ascii: "{"))
        // Rows read in place: copying each row out of the table would retain and release its
        // references per field per record.
        Self.fields.withUnsafeBufferPointer { fields in
            for i in fields.indices {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "\""))
                out.append(fields[i].keyText)
                out.append(#"":"#)
                switch fields[i].value {
                case .count(let read): out.appendInt(read(self))
                case .float(let read): Self.appendRounded(read(self), to: &out)
                case .string(let read): out.appendString(read(self))
                case .structured(let write): write(self, &out)
                }
            }
        }
        out.append(UInt8(ascii: "}"))
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

    /// Appends `items` between `open` and `close` (`[`/`]`, `{`/`}`), separated by commas, each
    /// written by `element`: the structured fields' writers (inlined, as the loop it stands for).
    @inline(__always)
    static func appendList<Items: Sequence>(
        _ items: Items, _ open: Unicode.Scalar, _ close: Unicode.Scalar, to out: inout JSONBuffer,
        _ element: (Items.Element, inout JSONBuffer) -> Void
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

    /// Appends a number rounded for the JSON (`roundedForJSON`), `null` when not finite.
    static func appendRounded(_ value: Double, to out: inout JSONBuffer) {
        // Under 10^15 hundredths the rounded value's shortest round-tripping form (Swift's
        // description) is those hundredths written out, as `appendHundredths` does without
        // making a String: doubles there lie far closer together than 0.01, so no shorter
        // decimal reads back as the same double.
        if let hundredths = roundedHundredths(value), hundredths.magnitude < 1_000_000_000_000_000 {
            appendHundredths(hundredths, to: &out)
            return
        }
        let r = roundedForJSON(value)
        guard r.isFinite else {
            out.append("null")
            return
        }
        // Swift's description is the shortest round-tripping form: 11.81, 2.4, 0.0.
        var text = r.description
        text.withUTF8 { out.append($0) }
    }

    /// `(value * 100).rounded()` (half away from zero) as a whole number, without libm's `round`
    /// (a call per number): truncated, then moved one away from zero when the part cut off is a
    /// half or more; that part is exact below 2^52, where doubles still hold fractions. Nil from
    /// 2^52 on (and for what is not finite): the caller writes those another way.
    @inline(__always)
    static func roundedHundredths(_ value: Double) -> Int64? {
        let scaled = value * 100
        guard abs(scaled) < 0x1p52 else { return nil }
        var whole = Int64(scaled)
        let cut = scaled - Double(whole)
        if cut >= 0.5 { whole += 1 } else if cut <= -0.5 { whole -= 1 }
        return whole
    }

    /// Appends `hundredths` / 100 as Swift's description writes a double with at most two
    /// decimals: `11.81`, `2.4`, `0.05`, `-3.0`, `0.0` (never `-0.0`).
    static func appendHundredths(_ hundredths: Int64, to out: inout JSONBuffer) {
        if hundredths < 0 { out.append(UInt8(ascii: "-")) }
        let (whole, fraction) = hundredths.magnitude.quotientAndRemainder(dividingBy: 100)
        out.appendDigits(whole)
        out.reserve(3)
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10))
        if fraction % 10 != 0 { out.append(UInt8(ascii: "0") + UInt8(fraction % 10)) }
    }
}
