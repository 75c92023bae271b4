import Glibc
import Histogram

/// Every histogram of `LatencyStats` in one flat table of counts, laid out bucket for bucket
/// as hdrhistogram-swift lays out a histogram of two significant digits from 1 ns to
/// `highestTrackable`, so that reading one back through `Histogram` gives the library's own
/// percentiles. Recording is an index and three stores: through `Histogram` each record
/// paid two copy-on-write checks and a struct's worth of loads, and an event's 18 records
/// cost more than routing it.
struct LatencyTable {
    /// 2 significant digits: 256 sub-buckets, the upper half of each bucket after the first.
    static let subBucketHalfCountMagnitude = 7
    static let subBucketHalfCount = 1 << subBucketHalfCountMagnitude
    static let subBucketMask: UInt64 = UInt64(2 * subBucketHalfCount - 1)
    /// 64 less the sub-bucket count's bits (unit magnitude 0: the lowest discernible value is 1).
    static let leadingZeroCountBase = 64 - subBucketHalfCountMagnitude - 1

    let highestTrackable: UInt64
    /// Counts in each histogram: the library's counts array length for `highestTrackable`.
    let length: Int
    let histograms: Int
    private let counts: UnsafeMutablePointer<UInt64>
    private let totals: UnsafeMutablePointer<UInt64>
    private let maxima: UnsafeMutablePointer<UInt64>

    /// `histograms` empty histograms of values up to `highestTrackable` (higher ones must be
    /// clamped by the caller). Pages no histogram has touched stay unmapped: a session holds
    /// the counts its clients' events reach, not the whole table (13 MB).
    init(histograms: Int, highestTrackable: UInt64) {
        self.histograms = histograms
        self.highestTrackable = highestTrackable
        length = Self.index(of: highestTrackable) + 1
        counts = Self.zeroed(histograms * length)
        totals = Self.zeroed(histograms)
        maxima = Self.zeroed(histograms)
    }

    private static func zeroed(_ count: Int) -> UnsafeMutablePointer<UInt64> {
        guard let memory = calloc(max(count, 1), MemoryLayout<UInt64>.stride) else { fatalError("LatencyTable: out of memory for \(count) counts") }
        return memory.bindMemory(to: UInt64.self, capacity: max(count, 1))
    }

    /// Frees the counts: the owner calls it once, when it goes.
    func release() {
        free(counts)
        free(totals)
        free(maxima)
    }

    /// The library's counts index of `value` (`Histogram.countsIndexForValue`).
    @inline(__always)
    static func index(of value: UInt64) -> Int {
        let bucket = leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
        let subBucket = Int(truncatingIfNeeded: value &>> UInt64(bucket))
        return ((bucket &+ 1) &<< subBucketHalfCountMagnitude) &+ subBucket &- subBucketHalfCount
    }

    /// The lowest value counted at `index` (`Histogram.valueFromIndex`).
    static func value(at index: Int) -> UInt64 {
        var bucket = (index >> subBucketHalfCountMagnitude) - 1
        var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucket < 0 {
            subBucket -= subBucketHalfCount
            bucket = 0
        }
        return UInt64(subBucket) << UInt64(bucket)
    }

    /// Counts `value`, at most `highestTrackable`, in histogram `histogram`.
    @inline(__always)
    func record(_ value: UInt64, in histogram: Int) {
        counts[histogram &* length &+ Self.index(of: value)] &+= 1
        totals[histogram] &+= 1
        if value > maxima[histogram] { maxima[histogram] = value }
    }

    func total(of histogram: Int) -> UInt64 { totals[histogram] }
    /// The largest value counted, exactly as it was recorded.
    func maximum(of histogram: Int) -> UInt64 { maxima[histogram] }

    /// Empties histograms `first..<first + count`. Only counts a histogram may have used are
    /// written, those up to its largest value's: one that counted nothing is zeros already,
    /// and writing pages nothing touched would make the session hold them for nothing.
    func reset(_ first: Int, count: Int) {
        for histogram in first..<(first + count) where totals[histogram] > 0 {
            memset(counts + histogram * length, 0, (Self.index(of: maxima[histogram]) + 1) * MemoryLayout<UInt64>.stride)
            totals[histogram] = 0
            maxima[histogram] = 0
        }
    }

    /// Histogram `histogram` as the library's, for its percentiles: each count recorded at
    /// its bucket's lowest value, which the library counts at the same index, but one at the
    /// largest value itself, which the library's percentiles are clamped to.
    func histogram(_ histogram: Int, digits: SignificantDigits) -> Histogram<UInt64> {
        var result = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestTrackable, numberOfSignificantValueDigits: digits)
        guard totals[histogram] > 0 else { return result }
        let base = counts + histogram * length
        let largest = maxima[histogram], largestIndex = Self.index(of: largest)
        for index in 0..<length where base[index] > 0 {
            if index == largestIndex {
                result.record(largest)
                if base[index] > 1 { result.record(Self.value(at: index), count: base[index] - 1) }
            } else {
                result.record(Self.value(at: index), count: base[index])
            }
        }
        return result
    }
}
