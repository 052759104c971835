import type { BenchRow, BenchTarget } from "@/bench/main.ts";

export function benchDropOff(_target?: BenchTarget): Promise<BenchRow[]> {
  return Promise.resolve([]);
}
