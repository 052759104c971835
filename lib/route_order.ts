/**
 * "Suggest an order" for a driver's run (docs/runs.md "Suggest an order"): a round trip from the depot
 * through every stop and back, built by nearest neighbour and then improved by 2-opt (reverse a stretch of
 * the run while that shortens it). No map service is reachable from the depot's network, so distances are
 * straight lines (`haversineKm`); the one seam for a road-distance provider is the `distance` argument of
 * `orderStops`: give it a function answering road kilometres or minutes between two points (it may be
 * async, and is asked once per pair, so a provider's distance matrix can answer from one request).
 */
import type { LatLng } from "@/lib/places/read.ts";

/** A distance between two points: anything to minimise (km, minutes), the same both ways or not. */
export type Distance = (from: LatLng, to: LatLng) => number | Promise<number>;

const EARTH_RADIUS_KM = 6371.0088;
const rad = (degrees: number) => degrees * Math.PI / 180;

/** The great-circle distance in km (haversine): the straight line a crow flies. */
export function haversineKm(a: LatLng, b: LatLng): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 +
    Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** 2-opt passes at most (each pass is O(n²); a run of 30 stops settles in a handful). */
const MAX_PASSES = 50;

/**
 * The stops in the suggested order: those with coordinates as a short round trip from `depot`, then those
 * without (nothing to measure them by) in the order given. Deterministic: ties keep the given order.
 */
export async function orderStops<T extends { coordinates: LatLng | null }>(
  depot: LatLng,
  stops: readonly T[],
  distance: Distance = haversineKm,
): Promise<T[]> {
  const placed = stops.filter((s) => s.coordinates !== null);
  const unplaced = stops.filter((s) => s.coordinates === null);
  // Point 0 is the depot, point i + 1 the i-th placed stop; d[i][j] from i to j.
  const points = [depot, ...placed.map((s) => s.coordinates!)];
  const d = await Promise.all(points.map((from) => Promise.all(points.map((to) => distance(from, to)))));

  // Nearest neighbour from the depot.
  const tour = [0];
  const left = new Set(placed.map((_, i) => i + 1));
  while (left.size > 0) {
    const at = tour[tour.length - 1];
    let best = -1;
    for (const j of left) if (best === -1 || d[at][j] < d[at][best]) best = j;
    tour.push(best);
    left.delete(best);
  }
  tour.push(0);

  // 2-opt on the round trip: reversing tour[i..k] replaces edges (i-1,i) and (k,k+1) by (i-1,k) and
  // (i,k+1). With a distance that is not symmetric the reversed stretch's own edges change too, so the
  // whole length is compared.
  const length = (t: number[]) => t.slice(1).reduce((sum, p, i) => sum + d[t[i]][p], 0);
  let bestLength = length(tour);
  for (let pass = 0, improved = true; improved && pass < MAX_PASSES; pass++) {
    improved = false;
    for (let i = 1; i < tour.length - 2; i++) {
      for (let k = i + 1; k < tour.length - 1; k++) {
        const candidate = [...tour.slice(0, i), ...tour.slice(i, k + 1).reverse(), ...tour.slice(k + 1)];
        const candidateLength = length(candidate);
        if (candidateLength < bestLength - 1e-9) {
          tour.splice(0, tour.length, ...candidate);
          bestLength = candidateLength;
          improved = true;
        }
      }
    }
  }
  return [...tour.slice(1, -1).map((p) => placed[p - 1]), ...unplaced];
}
