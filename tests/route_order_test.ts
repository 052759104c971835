/**
 * "Suggest an order" (lib/route_order.ts, docs/runs.md "Suggest an order"): straight-line distances, nearest
 * neighbour then 2-opt over the round trip from the depot, stops without coordinates last, and the
 * `distance` seam a road-distance provider would fill.
 */
import assert from "node:assert/strict";
import type { LatLng } from "@/lib/places/read.ts";
import { haversineKm, orderStops } from "@/lib/route_order.ts";

const at = (latitude: number, longitude: number): LatLng => ({ latitude, longitude });
const stop = (name: string, coordinates: LatLng | null) => ({ name, coordinates });
const names = (stops: { name: string }[]) => stops.map((s) => s.name);

Deno.test("route order: haversine gives the great-circle distance in km", () => {
  // Sydney GPO to Melbourne GPO: about 714 km as the crow flies.
  assert.ok(Math.abs(haversineKm(at(-33.8675, 151.2070), at(-37.8136, 144.9631)) - 714) < 3);
  assert.equal(haversineKm(at(10, 20), at(10, 20)), 0);
  // One degree of latitude: about 111.2 km anywhere.
  assert.ok(Math.abs(haversineKm(at(0, 0), at(1, 0)) - 111.2) < 0.1);
});

/** On a plane: the distance the test's points are laid out in. */
const plane = (p: LatLng, q: LatLng) => Math.hypot(p.latitude - q.latitude, p.longitude - q.longitude);

/** The round trip's length from the depot through `order` and back. */
const loop = (depot: LatLng, order: LatLng[]) =>
  [...order, depot].reduce((sum, p, i) => sum + plane(i === 0 ? depot : order[i - 1], p), 0);

/** Every order of `items`. */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) => permutations(items.toSpliced(i, 1)).map((rest) => [x, ...rest]));
}

Deno.test("route order: 2-opt finds the shortest loop where nearest neighbour alone does not", async () => {
  const depot = at(0, 0);
  // Nearest neighbour takes the close stops on one side first, then must cross back for the far ones.
  const points = [at(0, 1), at(0, 2), at(0, 3), at(0.5, -0.8), at(3, 2.9), at(2.8, -0.5)];
  const stops = points.map((p, i) => stop(`S${i}`, p));
  // Nearest neighbour, worked by hand here: from the depot always the closest stop left.
  const greedy: LatLng[] = [];
  const left = [...points];
  for (let from = depot; left.length > 0;) {
    left.sort((p, q) => plane(from, p) - plane(from, q));
    from = left.shift()!;
    greedy.push(from);
  }
  const best = Math.min(...permutations(points).map((order) => loop(depot, order)));
  assert.ok(loop(depot, greedy) > best + 0.1, "the layout must trip nearest neighbour up");
  const ordered = await orderStops(depot, stops, plane);
  assert.ok(
    Math.abs(loop(depot, ordered.map((s) => s.coordinates!)) - best) < 1e-9,
    names(ordered).join(" "),
  );
});

Deno.test("route order: stops without coordinates keep their order after the others", async () => {
  const ordered = await orderStops(at(-33.8, 151.0), [
    stop("unknown 1", null),
    stop("far", at(-33.8, 151.3)),
    stop("unknown 2", null),
    stop("near", at(-33.8, 151.1)),
  ]);
  assert.deepEqual(names(ordered), ["near", "far", "unknown 1", "unknown 2"]);
  assert.deepEqual(await orderStops(at(0, 0), []), []);
});

Deno.test("route order: the distance is the seam: a provider's (async) distance decides the order", async () => {
  const asked: string[] = [];
  // A "road" distance where the shop to the west is quicker to reach than the crow's nearer east one.
  const road = (from: LatLng, to: LatLng) => {
    asked.push(`${from.longitude}>${to.longitude}`);
    const west = to.longitude < from.longitude;
    return Promise.resolve(Math.abs(to.longitude - from.longitude) * (west ? 0.1 : 1));
  };
  const ordered = await orderStops(at(0, 0), [stop("east", at(0, 0.1)), stop("west", at(0, -0.5))], road);
  assert.deepEqual(names(ordered), ["west", "east"]);
  // Asked once per ordered pair of points (depot and two stops): a matrix a provider can answer at once.
  assert.equal(asked.length, 9);
});
