import Foundation

/// How figures are written in the tables: three significant digits, a unit that fits,
/// thousands grouped with commas, whatever the locale.
enum Format {
    /// `812 ns`, `4.21 µs`, `2.38 ms`, `1.62 s`.
    static func duration(_ seconds: Double) -> String {
        let (value, unit): (Double, String) =
            switch seconds {
            case ..<1e-6: (seconds * 1e9, "ns")
            case ..<1e-3: (seconds * 1e6, "µs")
            case ..<1: (seconds * 1e3, "ms")
            default: (seconds, "s")
            }
        return "\(significant(value)) \(unit)"
    }

    /// `1,234/s`, `56.7/s`.
    static func rate(_ perSecond: Double) -> String {
        perSecond >= 1000 ? "\(count(Int(perSecond.rounded())))/s" : "\(significant(perSecond))/s"
    }

    /// `1.07×`; `2,235×` from 100 up; two significant digits below 0.01 (`0.0018×`).
    static func ratio(_ ratio: Double) -> String {
        switch ratio {
        case 100...: "\(count(Int(ratio.rounded())))×"
        case 0.01...: String(format: "%.2f×", ratio)
        default: String(format: "%.2g×", ratio)
        }
    }

    /// `100,000`.
    static func count(_ count: Int) -> String {
        let digits = String(count.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return count < 0 ? "-" + out : out
    }

    /// `value` to three significant digits: `4.21`, `42.1`, `421`, `4210`.
    static func significant(_ value: Double) -> String {
        switch value {
        case ..<10: String(format: "%.2f", value)
        case ..<100: String(format: "%.1f", value)
        default: String(format: "%.0f", value)
        }
    }
}
