/// atan2 for the core, which may not import Foundation or Glibc. The rotation recognizer
/// and the pair angle need it. Its error stays within a few units in the last place of π
/// (RecognizerTests checks it against libm to 1e-14 radians).
///
/// The angle of (x, y) in radians, in -π...π, with libm's conventions for zeros and
/// infinities; NaN in, NaN out.
public func arctangent(_ y: Double, _ x: Double) -> Double {
    if x.isNaN || y.isNaN { return .nan }
    if x.isInfinite || y.isInfinite {
        // Only the directions matter now: an infinite side counts as 1, a finite one as 0.
        let unitX = x.isInfinite ? (x < 0 ? -1.0 : 1.0) : (x.sign == .minus ? -0.0 : 0.0)
        let unitY = y.isInfinite ? (y < 0 ? -1.0 : 1.0) : (y.sign == .minus ? -0.0 : 0.0)
        return arctangent(unitY, unitX)
    }
    let ax = abs(x), ay = abs(y)
    if ax == 0 && ay == 0 {
        // atan2(±0, +0) = ±0 and atan2(±0, -0) = ±π.
        if x.sign == .minus { return y.sign == .minus ? -Double.pi : .pi }
        return y
    }
    // Fold into the first octant, where the ratio is at most 1 and the division cannot overflow.
    let steep = ay > ax
    var angle = arctangentOfUnitRatio(steep ? ax / ay : ay / ax)
    if steep { angle = Double.pi / 2 - angle }
    if x.sign == .minus { angle = Double.pi - angle }
    return y.sign == .minus ? -angle : angle
}

/// atan(t) for t in 0...1.
private func arctangentOfUnitRatio(_ t: Double) -> Double {
    // tan(π/12): above it, atan(t) = π/6 + atan((t√3 - 1) / (t + √3)) brings the argument
    // back to |u| <= tan(π/12), where the Taylor series below converges fast: its first
    // dropped term, u^23/23, is under 1e-15.
    let tanPiOver12 = 0.267_949_192_431_122_7
    let root3 = 1.732_050_807_568_877_2
    if t <= tanPiOver12 { return arctangentSeries(t) }
    return Double.pi / 6 + arctangentSeries((t * root3 - 1) / (t + root3))
}

/// u - u³/3 + u⁵/5 - … + u²¹/21, in Horner form in u².
private func arctangentSeries(_ u: Double) -> Double {
    let u2 = u * u
    var sum = 1.0 / 21
    sum = sum * u2 - 1.0 / 19
    sum = sum * u2 + 1.0 / 17
    sum = sum * u2 - 1.0 / 15
    sum = sum * u2 + 1.0 / 13
    sum = sum * u2 - 1.0 / 11
    sum = sum * u2 + 1.0 / 9
    sum = sum * u2 - 1.0 / 7
    sum = sum * u2 + 1.0 / 5
    sum = sum * u2 - 1.0 / 3
    sum = sum * u2 + 1
    return sum * u
}

/// `angle` brought into -π...π by whole turns, so the change between two pair angles is
/// the short way round.
public func wrappedAngle(_ angle: Double) -> Double {
    guard angle.isFinite else { return 0 }
    var a = angle
    let turn = 2 * Double.pi
    if a > Double.pi || a < -Double.pi {
        a -= turn * (a / turn).rounded()
    }
    return a
}
