/**
 * Counts the calls of a real function while `fn` runs (the function still does its work), then puts it back:
 * how the tests see that a library reached the operating system (node:fs) without replacing it.
 */
export async function countingCalls<O extends object, K extends keyof O, T>(
  target: O,
  name: K,
  fn: () => T | Promise<T>,
): Promise<{ result: T; calls: number }> {
  const original = target[name] as (...args: unknown[]) => unknown;
  let calls = 0;
  target[name] = function (this: unknown, ...args: unknown[]) {
    calls++;
    return original.apply(this, args);
  } as O[K];
  try {
    return { result: await fn(), calls };
  } finally {
    target[name] = original as O[K];
  }
}
