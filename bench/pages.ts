import type { BenchRow, BenchTarget } from "@/bench/main.ts";

export function benchPages(_target?: BenchTarget): Promise<BenchRow[]> {
  return Promise.resolve([]);
}
