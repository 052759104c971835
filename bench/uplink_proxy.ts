/**
 * A poor depot uplink on loopback (bench only), for what Chromium's network emulation cannot do: its
 * `packetLoss` drops WebRTC packets only, never an HTTP request's. Put between the browser and the app, it
 * paces everything the browser sends through one shared uplink of `uplinkBytesPerSecond`, delays each
 * direction by half the round trip, and loses segments: each 1460-byte segment sent is lost with
 * probability `loss` (a seeded draw, the same in every run), and a loss stalls the uplink for one round
 * trip, as TCP's fast retransmit does (the window's shrinking after a loss is not modelled, so real TCP does
 * worse). Downloads are not throttled. Chunks keep their order; every loop ends with its connection.
 */
import { startPacedProxy } from "@/bench/delay_proxy.ts";

export interface UplinkProxy {
  port: number;
  /** Segments lost so far. */
  lost(): number;
  close(): void;
}

export interface UplinkShape {
  uplinkBytesPerSecond: number;
  roundTripMs: number;
  /** Probability that a segment is lost (0–1). */
  loss: number;
  seed: number;
}

const SEGMENT = 1460;

/** The shared uplink: when it is free again, and the seeded loss draw. */
class Link {
  freeAt = 0;
  lost = 0;
  #state: number;
  constructor(readonly shape: UplinkShape) {
    this.#state = shape.seed >>> 0;
  }
  #draw(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(this.#state ^ (this.#state >>> 15), this.#state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** When a chunk of `bytes` sent now has crossed the uplink (before the one-way delay). */
  send(bytes: number): number {
    let at = Math.max(performance.now(), this.freeAt);
    for (let left = bytes; left > 0; left -= SEGMENT) {
      at += Math.min(left, SEGMENT) / this.shape.uplinkBytesPerSecond * 1000;
      if (this.#draw() < this.shape.loss) {
        this.lost++;
        at += this.shape.roundTripMs;
      }
    }
    this.freeAt = at;
    return at;
  }
}

/** Listens on a free loopback port and forwards each connection to `target` through the shaped uplink. */
export function startUplinkProxy(
  target: { hostname: string; port: number },
  shape: UplinkShape,
): UplinkProxy {
  const link = new Link(shape);
  const oneWay = shape.roundTripMs / 2;
  const proxy = startPacedProxy(
    target,
    (bytes) => link.send(bytes) + oneWay,
    () => performance.now() + oneWay,
  );
  return { ...proxy, lost: () => link.lost };
}
