/** Issue 14's budgets for resident memory (MB), used by the idle and the under-load figures. */
export const MEMORY_BUDGET_MB = { firstStart: 250, embedded: 250, server: 90 } as const;

/** The memory target as the headline table shows it (one text for both databases' cells). */
export const MEMORY_TARGET =
  `≤ ${MEMORY_BUDGET_MB.embedded} MB embedded, ${MEMORY_BUDGET_MB.server} MB server`;
