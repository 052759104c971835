/**
 * Configuration (D2): read from the environment once, validated with zod. Nothing else in the
 * service reads `Deno.env`; every module receives the parsed `Config` through `createApp(deps)`.
 */
import { z } from "zod";

const APP_ENVS = ["development", "stage", "production"] as const;
const CHAT_FORMATS = ["cliq", "slack", "teams", "json"] as const;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const optionalUrl = z.url({ protocol: /^https?$/ }).optional();

const envSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8000),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  APP_ENV: z.enum(APP_ENVS).default("development"),
  PUBLIC_KEY: z.string().min(1).optional(),
  APP_OWNER: z.string().regex(/^[A-Za-z0-9_.-]+$/).default("depot"),
  APP_NAME: z.string().regex(/^[A-Za-z0-9_.-]+$/).default("parts-movement"),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  UPLOAD_TOKEN_TTL_SECONDS: positiveInt(600),
  MAX_PHOTO_BYTES: positiveInt(10 * 1024 * 1024),
  CHAT_WEBHOOK_PARTS_MOVEMENT: optionalUrl,
  CHAT_WEBHOOK_NEW_REPAIR_JOBS: optionalUrl,
  CHAT_FORMAT: z.enum(CHAT_FORMATS).default("cliq"),
  // Not in D2: an operator's switch for load tests from one address (bench). On unless set to "off".
  RATE_LIMITS: z.enum(["on", "off"]).default("on"),
  // Slow clients (issue 15): how long a request body may stall, and the slowest average it may arrive at.
  BODY_TIMEOUT_SECONDS: positiveInt(20),
  BODY_MIN_BYTES_PER_SECOND: positiveInt(4096),
  // Reverse proxies whose X-Forwarded-For names the client (deploy/nginx.conf); none by default.
  TRUSTED_PROXIES: z.string().transform((v) => v.split(",").map((a) => a.trim()).filter(Boolean))
    .pipe(z.array(z.union([z.ipv4(), z.ipv6()], { error: "must be IP addresses separated by commas" })))
    .optional(),
});

export type AppEnv = (typeof APP_ENVS)[number];
export type ChatFormat = (typeof CHAT_FORMATS)[number];

export interface Config {
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  appEnv: AppEnv;
  publicKey: string;
  appOwner: string;
  appName: string;
  publicUrl: string;
  uploadTokenTtlSeconds: number;
  maxPhotoBytes: number;
  chatWebhooks: { partsMovement: string | undefined; newRepairJobs: string | undefined };
  chatFormat: ChatFormat;
  rateLimits: boolean;
  /** A request body that sends nothing for `timeoutMs`, or less than `minBytesPerSecond` on average once
   * `timeoutMs` have passed, is refused with 408 (routes/web/body_limits.ts). */
  bodyPace: { timeoutMs: number; minBytesPerSecond: number };
  /** Peer addresses whose X-Forwarded-For is believed (routes/web/rate_limits.ts). */
  trustedProxies: string[];
}

export class ConfigError extends Error {}

/** The shortest PUBLIC_KEY accepted outside development. */
export const MIN_PUBLIC_KEY_LENGTH = 16;

/** Parses the environment; throws ConfigError with one line naming the first bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty variable means "unset": shells and .env files often export NAME= to clear a value.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0])} ${issue.message}`);
  }
  const e = parsed.data;
  if (e.APP_ENV === "production" && !e.PUBLIC_KEY) {
    throw new ConfigError("Invalid configuration: PUBLIC_KEY is required when APP_ENV is production");
  }
  // A short key is guessable, and every phone carries it: outside development it must be a real secret.
  if (e.APP_ENV !== "development" && e.PUBLIC_KEY && e.PUBLIC_KEY.length < MIN_PUBLIC_KEY_LENGTH) {
    throw new ConfigError(
      `Invalid configuration: PUBLIC_KEY must be at least ${MIN_PUBLIC_KEY_LENGTH} characters when APP_ENV is ${e.APP_ENV}`,
    );
  }
  return {
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    appEnv: e.APP_ENV,
    publicKey: e.PUBLIC_KEY ?? "dev-public-key",
    appOwner: e.APP_OWNER,
    appName: e.APP_NAME,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    uploadTokenTtlSeconds: e.UPLOAD_TOKEN_TTL_SECONDS,
    maxPhotoBytes: e.MAX_PHOTO_BYTES,
    chatWebhooks: {
      partsMovement: e.CHAT_WEBHOOK_PARTS_MOVEMENT,
      newRepairJobs: e.CHAT_WEBHOOK_NEW_REPAIR_JOBS,
    },
    chatFormat: e.CHAT_FORMAT,
    rateLimits: e.RATE_LIMITS === "on",
    bodyPace: { timeoutMs: e.BODY_TIMEOUT_SECONDS * 1000, minBytesPerSecond: e.BODY_MIN_BYTES_PER_SECOND },
    trustedProxies: e.TRUSTED_PROXIES ?? [],
  };
}

/** Configuration for tests: defaults plus overrides, never the process environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // Rate limits off: a test sends hundreds of requests from one address; tests of the limits turn them on.
  return { ...parseConfig({}), dataDir: "./test-output/data", rateLimits: false, ...overrides };
}
