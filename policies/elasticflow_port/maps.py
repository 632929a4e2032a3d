"""The step maps ElasticFlow plans with (the built-in's `maps.rs`): time ->
a value that holds from that time on (free GPUs of the cluster, or a job's
GPUs), kept sorted; and the integer and float rules the built-in's Rust
arithmetic follows (i64 saturation and wrapping, IEEE division, `ceil` to
whole seconds).
"""

import math
from bisect import bisect_left

SLOT = 60                      # ElasticFlow's scheduling slot, seconds
I64_MAX = 2**63 - 1
SECS_MIN = -(2**63)
SECS_MAX = I64_MAX
CLAMP = float(I64_MAX) / 4.0   # Rust `i64::MAX as f64 / 4.0`


def ceil_secs(x):
    """`ceil(x)` as whole seconds (saturating for a value beyond any time)."""
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return I64_MAX // 4 if x > 0.0 else 0
    c = float(math.ceil(x))
    if c > CLAMP:
        c = CLAMP
    elif c < -CLAMP:
        c = -CLAMP
    return int(c)


def fdiv(a, b):
    """IEEE division: a zero divisor gives ±inf or NaN, as in Rust."""
    if b == 0.0:
        if a == 0.0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def wrap64(x):
    """An i64 result as Rust's release build wraps it."""
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x


def sat64(x):
    return I64_MAX if x > I64_MAX else (-(2**63) if x < -(2**63) else x)


def align(s, x):
    """`x` rounded up to the slot grid that starts at `s`."""
    d = x - s
    k = d // SLOT + (1 if d % SLOT > 0 else 0)
    return s + k * SLOT


class Steps:
    """A step map: keys ascending, each once (time -> value from then on)."""

    __slots__ = ("k", "v")

    def __init__(self, k, v):
        self.k = k
        self.v = v

    def clone(self):
        return Steps(self.k[:], self.v[:])

    def get(self, k):
        i = bisect_left(self.k, k)
        if i < len(self.k) and self.k[i] == k:
            return self.v[i]
        return None

    def contains(self, k):
        i = bisect_left(self.k, k)
        return i < len(self.k) and self.k[i] == k

    def insert(self, k, v):
        i = bisect_left(self.k, k)
        if i < len(self.k) and self.k[i] == k:
            self.v[i] = v
        else:
            self.k.insert(i, k)
            self.v.insert(i, v)

    def fill_keys(self, keys, v):
        """Every key of `keys` (ascending) not yet a key gets the value `v`."""
        ok, ov = self.k, self.v
        nk, nv = [], []
        i, n = 0, len(keys)
        for k, x in zip(ok, ov):
            while i < n and keys[i] < k:
                nk.append(keys[i])
                nv.append(v)
                i += 1
            if i < n and keys[i] == k:
                i += 1
            nk.append(k)
            nv.append(x)
        while i < n:
            nk.append(keys[i])
            nv.append(v)
            i += 1
        self.k, self.v = nk, nv

    def at_or_insert(self, k, v):
        """The index of `k`, inserted with `v` first if it is not a key."""
        i = bisect_left(self.k, k)
        if not (i < len(self.k) and self.k[i] == k):
            self.k.insert(i, k)
            self.v.insert(i, v)
        return i

    def bounds(self, lo, hi):
        return bisect_left(self.k, lo), bisect_left(self.k, hi)

    def range_idx(self, lo, hi):
        """The indices of the keys in lo..hi (none if hi is not after lo)."""
        a, b = bisect_left(self.k, lo), bisect_left(self.k, hi)
        return a, max(a, b)

    def keys_in(self, lo, hi):
        a, b = self.range_idx(lo, hi)
        return self.k[a:b]

    def key_after(self, x):
        i = bisect_left(self.k, x + 1)
        return self.k[i] if i < len(self.k) else None

    def last_before(self, x):
        i = bisect_left(self.k, x)
        return (self.k[i - 1], self.v[i - 1]) if i > 0 else None

    def merged(self):
        """Every step whose value repeats the one before dropped (a step
        goes exactly when its value equals the one before it)."""
        v = self.v
        if len(v) < 2:
            return self
        keep = [i for i, (a, b) in enumerate(zip(v, v[1:]), 1) if a != b]
        if len(keep) + 1 < len(v):
            k = self.k
            self.k = [k[0]] + [k[i] for i in keep]
            self.v = [v[0]] + [v[i] for i in keep]
        return self

    def items(self):
        return zip(self.k, self.v)


def given_back(free, alloc, end, n):
    """The reservations `free` with a plan `alloc` given back until `end`:
    on every key of either and at `end`, the free count plus the GPUs the
    plan holds there before `end` (no key yet: `n` free, a plan 0), merged."""
    fk, fvs, ak, avs = free.k, free.v, alloc.k, alloc.v
    keys = set(fk)
    keys.update(ak)
    keys.add(end)
    keys = sorted(keys)
    ov = []
    i = j = 0
    fv, av = n, 0
    lf, la = len(fk), len(ak)
    for k in keys:
        if i < lf and fk[i] == k:
            fv = fvs[i]
            i += 1
        if j < la and ak[j] == k:
            av = avs[j]
            j += 1
        ov.append(fv + av if k < end else fv)
    return Steps(keys, ov).merged()


def gpu_secs(a, end):
    """GPU-seconds of an allocation from its first key to `end` (i64
    saturating, as the built-in sums them)."""
    s = 0
    ks, vs = a.k, a.v
    last = len(ks) - 1
    lo, hi = -(2**63), I64_MAX
    for i in range(last + 1):
        x = vs[i] * ((ks[i + 1] if i < last else end) - ks[i])
        if x > hi or x < lo:
            x = sat64(x)
        s += x
        if s > hi or s < lo:
            s = sat64(s)
    return s
