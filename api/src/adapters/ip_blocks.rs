//! Where a notification may go (issue 26, item 7): to global unicast addresses only, per the IANA
//! IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890) and the IPv6 address
//! architecture (RFC 4291: only `2000::/3` is global unicast). No maintained crate carries the
//! registries (the standard library's `is_global` is unstable and leaves out embedded IPv4), so
//! they are written out here, each block with its RFC; the tests check an address of each.
//!
//! Every block of the registries is refused, including those marked "globally reachable"
//! (anycast relays, AS112, AMT, ORCHIDv2, drone tags): none of them is a webhook receiver or a
//! push service. An IPv6 address that carries an IPv4 address (IPv4-mapped, -compatible or
//! -translated, the NAT64 well-known prefix, 6to4, Teredo) is judged by the IPv4 it carries —
//! Teredo by both its server and its client address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One block of a registry: its prefix, length, name and defining RFC.
pub struct Block<A> {
    pub prefix: A,
    pub len: u8,
    pub name: &'static str,
    pub rfc: &'static str,
}

const fn v4(
    a: u8,
    b: u8,
    c: u8,
    d: u8,
    len: u8,
    name: &'static str,
    rfc: &'static str,
) -> Block<Ipv4Addr> {
    Block {
        prefix: Ipv4Addr::new(a, b, c, d),
        len,
        name,
        rfc,
    }
}

const fn v6(s: [u16; 8], len: u8, name: &'static str, rfc: &'static str) -> Block<Ipv6Addr> {
    Block {
        prefix: Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
        len,
        name,
        rfc,
    }
}

/// The IANA IPv4 Special-Purpose Address Registry (every entry), with multicast and the rest of
/// class E from the IPv4 address space registry. More specific blocks first (they name it).
pub const IPV4: &[Block<Ipv4Addr>] = &[
    v4(0, 0, 0, 0, 8, "\"this network\"", "RFC 791"),
    v4(10, 0, 0, 0, 8, "private use", "RFC 1918"),
    v4(100, 64, 0, 0, 10, "shared address space", "RFC 6598"),
    v4(127, 0, 0, 0, 8, "loopback", "RFC 1122"),
    v4(169, 254, 0, 0, 16, "link local", "RFC 3927"),
    v4(172, 16, 0, 0, 12, "private use", "RFC 1918"),
    v4(
        192,
        0,
        0,
        0,
        29,
        "IPv4 service continuity prefix",
        "RFC 7335",
    ),
    v4(192, 0, 0, 8, 32, "IPv4 dummy address", "RFC 7600"),
    v4(
        192,
        0,
        0,
        9,
        32,
        "Port Control Protocol anycast",
        "RFC 7723",
    ),
    v4(192, 0, 0, 10, 32, "TURN anycast", "RFC 8155"),
    v4(192, 0, 0, 170, 32, "NAT64/DNS64 discovery", "RFC 8880"),
    v4(192, 0, 0, 171, 32, "NAT64/DNS64 discovery", "RFC 8880"),
    v4(192, 0, 0, 0, 24, "IETF protocol assignments", "RFC 6890"),
    v4(192, 0, 2, 0, 24, "documentation (TEST-NET-1)", "RFC 5737"),
    v4(192, 31, 196, 0, 24, "AS112-v4", "RFC 7535"),
    v4(192, 52, 193, 0, 24, "AMT", "RFC 7450"),
    v4(192, 88, 99, 2, 32, "6a44-relay anycast", "RFC 6751"),
    v4(
        192,
        88,
        99,
        0,
        24,
        "deprecated (6to4 relay anycast)",
        "RFC 7526",
    ),
    v4(192, 168, 0, 0, 16, "private use", "RFC 1918"),
    v4(
        192,
        175,
        48,
        0,
        24,
        "direct delegation AS112 service",
        "RFC 7534",
    ),
    v4(198, 18, 0, 0, 15, "benchmarking", "RFC 2544"),
    v4(
        198,
        51,
        100,
        0,
        24,
        "documentation (TEST-NET-2)",
        "RFC 5737",
    ),
    v4(203, 0, 113, 0, 24, "documentation (TEST-NET-3)", "RFC 5737"),
    v4(224, 0, 0, 0, 4, "multicast", "RFC 5771"),
    v4(255, 255, 255, 255, 32, "limited broadcast", "RFC 919"),
    v4(240, 0, 0, 0, 4, "reserved", "RFC 1112"),
];

/// The IANA IPv6 Special-Purpose Address Registry (every entry but the blocks that carry an
/// IPv4 address, judged by it: see [`embedded`]), with the deprecated site-local block and
/// multicast from the address architecture. More specific blocks first.
pub const IPV6: &[Block<Ipv6Addr>] = &[
    v6([0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback", "RFC 4291"),
    v6([0, 0, 0, 0, 0, 0, 0, 0], 128, "unspecified", "RFC 4291"),
    v6(
        [0x64, 0xff9b, 1, 0, 0, 0, 0, 0],
        48,
        "IPv4-IPv6 translation (local use)",
        "RFC 8215",
    ),
    v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64, "discard-only", "RFC 6666"),
    v6(
        [0x100, 0, 0, 1, 0, 0, 0, 0],
        64,
        "dummy IPv6 prefix",
        "RFC 9780",
    ),
    v6(
        [0x2001, 1, 0, 0, 0, 0, 0, 1],
        128,
        "Port Control Protocol anycast",
        "RFC 7723",
    ),
    v6(
        [0x2001, 1, 0, 0, 0, 0, 0, 2],
        128,
        "TURN anycast",
        "RFC 8155",
    ),
    v6(
        [0x2001, 1, 0, 0, 0, 0, 0, 3],
        128,
        "DNS-SD service registration anycast",
        "RFC 9665",
    ),
    v6(
        [0x2001, 2, 0, 0, 0, 0, 0, 0],
        48,
        "benchmarking",
        "RFC 5180",
    ),
    v6([0x2001, 3, 0, 0, 0, 0, 0, 0], 32, "AMT", "RFC 7450"),
    v6(
        [0x2001, 4, 0x112, 0, 0, 0, 0, 0],
        48,
        "AS112-v6",
        "RFC 7535",
    ),
    v6(
        [0x2001, 0x10, 0, 0, 0, 0, 0, 0],
        28,
        "deprecated (ORCHID)",
        "RFC 4843",
    ),
    v6([0x2001, 0x20, 0, 0, 0, 0, 0, 0], 28, "ORCHIDv2", "RFC 7343"),
    v6(
        [0x2001, 0x30, 0, 0, 0, 0, 0, 0],
        28,
        "drone remote ID entity tags",
        "RFC 9374",
    ),
    v6(
        [0x2001, 0, 0, 0, 0, 0, 0, 0],
        23,
        "IETF protocol assignments",
        "RFC 2928",
    ),
    v6(
        [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0],
        32,
        "documentation",
        "RFC 3849",
    ),
    v6(
        [0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0],
        48,
        "direct delegation AS112 service",
        "RFC 7534",
    ),
    v6(
        [0x3fff, 0, 0, 0, 0, 0, 0, 0],
        20,
        "documentation",
        "RFC 9637",
    ),
    v6(
        [0x5f00, 0, 0, 0, 0, 0, 0, 0],
        16,
        "segment routing (SRv6) SIDs",
        "RFC 9602",
    ),
    v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, "unique local", "RFC 4193"),
    v6(
        [0xfe80, 0, 0, 0, 0, 0, 0, 0],
        10,
        "link-local unicast",
        "RFC 4291",
    ),
    v6(
        [0xfec0, 0, 0, 0, 0, 0, 0, 0],
        10,
        "site-local (deprecated)",
        "RFC 3879",
    ),
    v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, "multicast", "RFC 4291"),
];

fn within(address: u128, prefix: u128, len: u8, bits: u8) -> bool {
    let shift = u32::from(bits - len);
    len == 0 || (address >> shift) == (prefix >> shift)
}

impl Block<Ipv4Addr> {
    pub fn contains(&self, ip: Ipv4Addr) -> bool {
        within(
            u32::from(ip).into(),
            u32::from(self.prefix).into(),
            self.len,
            32,
        )
    }
}

impl Block<Ipv6Addr> {
    pub fn contains(&self, ip: Ipv6Addr) -> bool {
        within(u128::from(ip), u128::from(self.prefix), self.len, 128)
    }
}

/// The IPv4 addresses an IPv6 address carries, and the form that carries them: IPv4-mapped
/// `::ffff:0:0/96` (RFC 4291), IPv4-translated `::ffff:0:0:0/96` (SIIT, RFC 2765), the
/// deprecated IPv4-compatible `::/96` (RFC 4291; `::` and `::1` are its `0.0.0.0` and
/// `0.0.0.1`), the NAT64 well-known prefix `64:ff9b::/96` (RFC 6052), 6to4 `2002::/16`
/// (RFC 3056) and Teredo `2001::/32` (RFC 4380: the server, then the client, stored inverted).
pub fn embedded(ip: Ipv6Addr) -> Option<(&'static str, Vec<Ipv4Addr>)> {
    let s = ip.segments();
    let last = Ipv4Addr::from(u128::from(ip) as u32);
    let pair = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(("IPv4-mapped", vec![last])),
        [0, 0, 0, 0, 0xffff, 0, _, _] => Some(("IPv4-translated", vec![last])),
        [0, 0, 0, 0, 0, 0, _, _] => Some(("IPv4-compatible", vec![last])),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(("NAT64", vec![last])),
        [0x2002, hi, lo, ..] => Some(("6to4", vec![pair(hi, lo)])),
        [0x2001, 0, hi, lo, _, _, c, d] => Some(("Teredo", vec![pair(hi, lo), pair(!c, !d)])),
        _ => None,
    }
}

/// Why `ip` is not a global unicast address (the block, its RFC), or `None` when it is one.
pub fn special(ip: IpAddr) -> Option<String> {
    match ip {
        IpAddr::V4(ip) => IPV4
            .iter()
            .find(|b| b.contains(ip))
            .map(|b| format!("{} {}/{} ({})", b.name, b.prefix, b.len, b.rfc)),
        IpAddr::V6(ip) => {
            if let Some((form, carried)) = embedded(ip) {
                return carried
                    .into_iter()
                    .find_map(|v4| special(IpAddr::V4(v4)))
                    .map(|why| format!("{form} of {why}"));
            }
            if let Some(b) = IPV6.iter().find(|b| b.contains(ip)) {
                return Some(format!("{} {}/{} ({})", b.name, b.prefix, b.len, b.rfc));
            }
            // RFC 4291 §2.4: global unicast is 2000::/3; the rest is reserved by the IETF.
            (ip.segments()[0] & 0xe000 != 0x2000)
                .then(|| "outside global unicast 2000::/3 (RFC 4291)".to_string())
        }
    }
}

/// Whether a notification may be sent to `ip`.
pub fn is_global(ip: IpAddr) -> bool {
    special(ip).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn last_of(prefix: u128, len: u8, bits: u8) -> u128 {
        let host = if len == bits {
            0
        } else {
            (1u128 << (bits - len)) - 1
        };
        prefix | host
    }

    // Every block of both tables: its first and last address are refused, naming the block.
    #[test]
    fn every_registry_block_is_refused_first_and_last_address() {
        for b in IPV4 {
            let first = u32::from(b.prefix);
            let last = last_of(first.into(), b.len, 32) as u32;
            for a in [first, last] {
                let why = special(IpAddr::V4(a.into()));
                assert!(
                    why.is_some(),
                    "{}/{} {}",
                    b.prefix,
                    b.len,
                    Ipv4Addr::from(a)
                );
            }
        }
        for b in IPV6 {
            let first = u128::from(b.prefix);
            for a in [first, last_of(first, b.len, 128)] {
                let a = Ipv6Addr::from(a);
                // The IPv4-compatible and Teredo blocks carry an IPv4 address: judged by it.
                if embedded(a).is_some() {
                    continue;
                }
                assert!(
                    special(IpAddr::V6(a)).is_some(),
                    "{}/{} {a}",
                    b.prefix,
                    b.len
                );
            }
        }
    }

    // The issue's addresses (item 7) and one of each range it names, by their block.
    #[test]
    fn the_issues_ipv6_special_purpose_addresses_are_refused() {
        for (address, why) in [
            ("2002:7f00:1::", "6to4 of loopback"),
            ("2002:a9fe:a9fe::1", "6to4 of link local"),
            ("2002:a00:1::", "6to4 of private use"),
            ("64:ff9b:1::a00:1", "local use"),
            ("64:ff9b:1::5db8:d822", "local use"),
            ("64:ff9b::a00:1", "NAT64 of private use"),
            ("64:ff9b::7f00:1", "NAT64 of loopback"),
            ("::ffff:0:a00:1", "IPv4-translated of private use"),
            ("::ffff:0:7f00:1", "IPv4-translated of loopback"),
            ("::ffff:127.0.0.1", "IPv4-mapped of loopback"),
            ("::127.0.0.1", "IPv4-compatible of loopback"),
            ("::", "IPv4-compatible of \"this network\""),
            ("::1", "IPv4-compatible of \"this network\""),
            ("fec0::1", "site-local"),
            ("100::1", "discard-only"),
            ("100:0:0:1::1", "dummy"),
            ("3fff::1", "documentation 3fff::/20"),
            ("3fff:fff:ffff::1", "documentation 3fff::/20"),
            ("2001:10::1", "ORCHID"),
            ("2001:20::1", "ORCHIDv2"),
            ("2001:30::1", "drone"),
            ("5f00::1", "segment routing"),
            ("2001:db8::1", "documentation"),
            ("2001:2::1", "benchmarking"),
            ("2001:3::1", "AMT"),
            ("2001:4:112::1", "AS112-v6"),
            ("2001:1::1", "Port Control"),
            ("2001:1::2", "TURN"),
            ("2001:1::3", "DNS-SD"),
            ("2001:5::1", "IETF protocol assignments"),
            ("2620:4f:8000::1", "AS112 service"),
            ("fc00::1", "unique local"),
            ("fd12::1", "unique local"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("4000::1", "outside global unicast"),
            ("::2:1", "IPv4-compatible of \"this network\""),
            // Teredo: server 65.54.227.120 (public), client 10.0.0.1 stored inverted.
            (
                "2001:0:4136:e378:8000:63bf:f5ff:fffe",
                "Teredo of private use",
            ),
            // Teredo with a private server.
            ("2001:0:a00:1:8000:63bf:a2b9:d7dd", "Teredo of private use"),
        ] {
            let told = special(ip(address)).unwrap_or_else(|| panic!("{address} was allowed"));
            assert!(told.contains(why), "{address}: {told}");
        }
    }

    #[test]
    fn every_ipv4_special_purpose_block_is_refused() {
        for (address, why) in [
            ("0.1.2.3", "this network"),
            ("10.1.2.3", "private"),
            ("100.64.0.1", "shared"),
            ("100.127.255.254", "shared"),
            ("127.0.0.2", "loopback"),
            ("169.254.169.254", "link local"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.0.0.1", "continuity"),
            ("192.0.0.8", "dummy"),
            ("192.0.0.9", "Port Control"),
            ("192.0.0.10", "TURN"),
            ("192.0.0.170", "NAT64/DNS64"),
            ("192.0.0.171", "NAT64/DNS64"),
            ("192.0.0.200", "IETF protocol"),
            ("192.0.2.1", "TEST-NET-1"),
            ("192.31.196.1", "AS112-v4"),
            ("192.52.193.1", "AMT"),
            ("192.88.99.1", "6to4 relay"),
            ("192.88.99.2", "6a44"),
            ("192.168.1.1", "private"),
            ("192.175.48.1", "AS112 service"),
            ("198.18.0.1", "benchmarking"),
            ("198.19.255.255", "benchmarking"),
            ("198.51.100.1", "TEST-NET-2"),
            ("203.0.113.1", "TEST-NET-3"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.255", "multicast"),
            ("240.0.0.1", "reserved"),
            ("255.255.255.254", "reserved"),
            ("255.255.255.255", "broadcast"),
        ] {
            let told = special(ip(address)).unwrap_or_else(|| panic!("{address} was allowed"));
            assert!(told.contains(why), "{address}: {told}");
        }
    }

    // Global unicast passes, in each form that carries a public IPv4 too; the addresses just
    // outside a block are not caught by it.
    #[test]
    fn global_unicast_addresses_pass() {
        for address in [
            "93.184.216.34",
            "8.8.8.8",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.0",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "2606:2800:220:1:248:1893:25c8:1946",
            "2a00:1450:4007:80e::200e",
            "2001:200::1",
            "::ffff:93.184.216.34",
            "64:ff9b::5db8:d822",
            "2002:5db8:d822::1",
            // Teredo: server 65.54.227.120, client 93.184.216.34 stored inverted.
            "2001:0:4136:e378:8000:63bf:a247:27dd",
        ] {
            assert_eq!(special(ip(address)), None, "{address}");
        }
    }
}
