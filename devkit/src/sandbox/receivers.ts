/**
 * Where the sandbox may send a webhook. A receiver URL is anyone's to register (any account, and any web page
 * that can reach the control API through a tool in front of it), and the sandbox then POSTs to it from the
 * developer's machine. So a receiver is refused when it would reach:
 *
 * - the sandbox itself (`http://127.0.0.1:4020/_sandbox/reset` made the sandbox wipe every account at the next
 *   event): any address of this machine (loopback, `localhost`, an interface's address) on the sandbox's port;
 * - link-local addresses (169.254.0.0/16, fe80::/10), among them the cloud metadata services
 *   (169.254.169.254, fd00:ec2::254, `metadata.google.internal`), and unspecified, multicast or reserved ones;
 * - private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), unless the sandbox was started with
 *   `allowPrivateReceivers` (`--allow-private-receivers`): a receiver on the developer's LAN is a choice.
 *
 * Loopback on another port stays allowed: `webhooks listen` on 127.0.0.1:4242 is the receiver of development.
 * An address is read however it is spelled (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`, `[::1]`): the WHATWG
 * URL parser normalises IPv4 forms, IPv4-mapped, -compatible and NAT64 IPv6 addresses are read as their IPv4
 * address. A name is checked again when it is resolved for each delivery (a name that resolved elsewhere at
 * registration can be rebound), on the connection's own lookup, so the address checked is the one connected to.
 * A URL with a user name or password is refused: it would be shown wherever the URL is.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, isIPv4 } from "node:net";
import { networkInterfaces } from "node:os";
import { receiverUrlForm } from "./receiver-url.ts";

export interface ReceiverPolicy {
  /** The sandbox's own port (a local address on it is the sandbox); undefined before it listens. */
  ownPort(): number | undefined;
  /** Receivers in private ranges allowed. */
  allowPrivate: boolean;
}

type Kind = "own" | "link-local" | "metadata" | "unspecified" | "multicast" | "reserved" | "private" | "loopback";

function blocks(entries: [string, number][], family: "ipv4" | "ipv6"): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of entries) list.addSubnet(network, prefix, family);
  return list;
}
const V4: [Kind, BlockList][] = [
  ["unspecified", blocks([["0.0.0.0", 8]], "ipv4")],
  ["loopback", blocks([["127.0.0.0", 8]], "ipv4")],
  ["metadata", blocks([["169.254.169.254", 32]], "ipv4")],
  ["link-local", blocks([["169.254.0.0", 16]], "ipv4")],
  [
    "private",
    blocks(
      [
        ["10.0.0.0", 8],
        ["172.16.0.0", 12],
        ["192.168.0.0", 16],
        ["100.64.0.0", 10],
      ],
      "ipv4",
    ),
  ],
  ["multicast", blocks([["224.0.0.0", 4]], "ipv4")],
  ["reserved", blocks([["240.0.0.0", 4]], "ipv4")],
];
const V6: [Kind, BlockList][] = [
  ["metadata", blocks([["fd00:ec2::254", 128]], "ipv6")],
  ["link-local", blocks([["fe80::", 10]], "ipv6")],
  ["private", blocks([["fc00::", 7]], "ipv6")],
  ["multicast", blocks([["ff00::", 8]], "ipv6")],
];

/** The 16 bytes of an IPv6 address (`::` expanded, a dotted IPv4 tail read). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().split("%")[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.flatMap((group) => {
    const value = Number.parseInt(group || "0", 16);
    return [value >> 8, value & 0xff];
  });
}

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d). */
function embeddedIPv4(bytes: number[]): string | undefined {
  const zero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const tail = () => bytes.slice(12).join(".");
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return tail();
  if (zero(0, 12) && !zero(12, 16) && !(zero(12, 15) && bytes[15] === 1)) return tail();
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) return tail();
  return undefined;
}

/** What kind of address this is, or undefined for a public one. */
export function addressKind(address: string): Exclude<Kind, "own"> | undefined {
  if (isIPv4(address)) {
    for (const [kind, list] of V4) if (list.check(address, "ipv4")) return kind as Exclude<Kind, "own">;
    if (address === "255.255.255.255") return "reserved";
    return undefined;
  }
  const bytes = ipv6Bytes(address);
  const v4 = embeddedIPv4(bytes);
  if (v4 !== undefined) return addressKind(v4);
  if (bytes.every((byte) => byte === 0)) return "unspecified";
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) return "loopback";
  for (const [kind, list] of V6) if (list.check(address.split("%")[0]!, "ipv6")) return kind as Exclude<Kind, "own">;
  return undefined;
}

/** The addresses of this machine's interfaces (refreshed at most once a minute). */
let localAddresses: { at: number; set: Set<string> } | undefined;
function isLocalAddress(address: string): boolean {
  if (!localAddresses || performance.now() - localAddresses.at > 60_000) {
    const set = new Set<string>();
    for (const list of Object.values(networkInterfaces()))
      for (const entry of list ?? []) set.add(entry.address.toLowerCase());
    localAddresses = { at: performance.now(), set };
  }
  return localAddresses.set.has(address.toLowerCase());
}

const WHY: Record<Kind, string> = {
  own: "the sandbox's own address (a delivery would call the sandbox itself)",
  "link-local": "a link-local address",
  metadata: "a cloud metadata address",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  reserved: "a reserved address",
  private: "a private address (start the sandbox with --allow-private-receivers to send there)",
  loopback: "",
};

/** Why the sandbox does not send to `address` on `port`, or undefined when it does. */
export function addressRefusal(address: string, port: number, policy: ReceiverPolicy): string | undefined {
  const kind = addressKind(address);
  const ownPort = policy.ownPort();
  if (port === ownPort && (kind === "loopback" || isLocalAddress(address))) return WHY.own;
  if (kind === undefined || kind === "loopback") return undefined;
  if (kind === "private" && policy.allowPrivate) return undefined;
  return WHY[kind];
}

const METADATA_NAMES = new Set(["metadata.google.internal", "metadata", "metadata.goog", "instance-data"]);

/** The URL's port, or its scheme's default. */
function portOf(url: URL): number {
  return url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
}

/**
 * Why a receiver URL is refused, from the URL alone (an address written in it, a name known to be local or a
 * metadata service, credentials), or undefined. Names are checked again on every delivery's lookup.
 */
export function receiverUrlRefusal(text: string, policy: ReceiverPolicy): string | undefined {
  const form = receiverUrlForm(text);
  if ("refusal" in form) return form.refusal;
  const { url } = form;
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  const port = portOf(url);
  const shown = `${url.hostname}:${port}`;
  if (isIP(host) !== 0) {
    const why = addressRefusal(host, port, policy);
    return why === undefined ? undefined : `must not point at ${shown}, ${why}`;
  }
  const name = host.toLowerCase();
  if (METADATA_NAMES.has(name)) return `must not point at ${shown}, ${WHY.metadata}`;
  if ((name === "localhost" || name.endsWith(".localhost")) && port === policy.ownPort())
    return `must not point at ${shown}, ${WHY.own}`;
  return undefined;
}

/** A refused receiver, as a delivery attempt reports it. */
export class ReceiverRefused extends Error {
  override name = "ReceiverRefused";
}

/**
 * A `dns.lookup` for connections to `port`: every address a name resolves to is checked (one refused refuses
 * the name: a rebinding name can answer with several).
 */
export function guardedLookup(port: number, policy: ReceiverPolicy) {
  return (
    hostname: string,
    options: { family?: number | "IPv4" | "IPv6"; all?: boolean; hints?: number },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const why = addressRefusal(address, port, policy);
        if (why !== undefined)
          return callback(new ReceiverRefused(`refused: ${hostname} resolves to ${address}, ${why}`), []);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
