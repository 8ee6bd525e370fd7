/// A hand-written SVG document: no listed Swift package draws charts, and a chart here is a few dozen
/// rectangles and labels, so the charts write SVG elements directly.
///
/// Output embeds inline in HTML as it is: no XML prolog, no `<style>` (it would leak into the page),
/// no external fonts or links; presentation attributes for the looks and class names for a page's CSS
/// to override. Every piece of text goes through ``escape(_:)``: names are hostile input.
struct SVGDocument {
    let width: Int
    let height: Int
    private var body: [String] = []

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Text safe inside an element or a double-quoted attribute; characters XML 1.0 forbids are dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out += " "
            default:
                let v = scalar.value
                if v < 0x20 || (0xFFFE...0xFFFF).contains(v) { continue }
                // Bidi embeddings, overrides and isolates: a tooltip (`<title>`) cannot isolate them as HTML's
                // <bdi> does, so a name holding U+202E would show "evil: 93 messages" reversed.
                if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A coordinate with at most one decimal, independent of locale.
    static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = abs(tenths)
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }

    mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, className: String,
        opacity: Double? = nil, tooltip: String? = nil
    ) {
        var element =
            "<rect class=\"\(className)\" x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" "
            + "width=\"\(Self.number(max(0, width)))\" height=\"\(Self.number(max(0, height)))\" fill=\"\(fill)\""
        if let opacity { element += " fill-opacity=\"\(Self.number(opacity))\"" }
        if let tooltip {
            element += "><title>\(Self.escape(tooltip))</title></rect>"
        } else {
            element += "/>"
        }
        body.append(element)
    }

    mutating func text(
        _ content: String, x: Double, y: Double, className: String, anchor: String = "start", size: Int = 11,
        weight: String? = nil
    ) {
        body.append(
            "<text class=\"\(className)\" x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" text-anchor=\"\(anchor)\" "
                + "font-size=\"\(size)\"\(weight.map { " font-weight=\"\($0)\"" } ?? "")>\(Self.escape(content))</text>"
        )
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, className: String) {
        body.append(
            "<line class=\"\(className)\" x1=\"\(Self.number(x1))\" y1=\"\(Self.number(y1))\" x2=\"\(Self.number(x2))\" "
                + "y2=\"\(Self.number(y2))\" stroke=\"#9ca3af\" stroke-width=\"1\"/>")
    }

    mutating func polyline(_ points: [(Double, Double)], className: String, stroke: String) {
        let list = points.map { "\(Self.number($0.0)),\(Self.number($0.1))" }.joined(separator: " ")
        body.append(
            "<polyline class=\"\(className)\" points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"1.5\"/>"
        )
    }

    /// The finished `<svg>` element: `name` becomes a class (`qbarchive-chart-NAME`), `title` its `<title>`.
    func render(name: String, title: String) -> String {
        let head =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"qbarchive-chart qbarchive-chart-\(Self.escape(name))\" "
            + "width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" "
            + "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\">"
        let background = "<rect class=\"background\" width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>"
        return ([head, "<title>\(Self.escape(title))</title>", background] + body + ["</svg>"]).joined(separator: "\n")
            + "\n"
    }
}
