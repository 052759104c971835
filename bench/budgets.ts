/**
 * The budgets for resident memory (MB; docs/performance.md "How `deno task bench` measures"): the idle figures'
 * budget, the under-load figures' yardstick.
 */
export const MEMORY_BUDGET_MB = { firstStart: 250, embedded: 250, server: 90 } as const;

/** The memory target as the headline table shows it: embedded / server (one text for both cells). */
export const MEMORY_TARGET = `≤ ${MEMORY_BUDGET_MB.embedded} / ${MEMORY_BUDGET_MB.server} MB`;
