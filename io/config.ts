/**
 * Configuration (D2): read from the environment once, validated with zod. Nothing else in the
 * service reads `Deno.env`; every module receives the parsed `Config` through `createApp(deps)`.
 */
import { z } from "zod";
import { canonicalTimeZone } from "@/io/time_zone.ts";

const APP_ENVS = ["development", "stage", "production"] as const;
// db/schema.ts ROLES (io/ reads no database module).
const ROLE_NAMES = ["driver", "dispatcher", "admin"] as const;
const ROLES_PROBLEM = "must be roles (driver, dispatcher, admin) separated by commas";
const CHAT_FORMATS = ["cliq", "slack", "teams", "json"] as const;
const LOG_FORMATS = ["json", "text"] as const;
const LOG_LEVELS = ["debug", "info", "warning", "error"] as const;
const PHOTO_STORES = ["disk", "postgres", "s3"] as const;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const wholeOrZero = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const optionalUrl = z.url({ protocol: /^https?$/ }).optional();

const envSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8000),
  // Not in D2 (docs/configuration.md): the address to listen on. Unset: loopback in development (the demo
  // enrols browsers as tablets), every interface otherwise (a reverse proxy fronts the service).
  HOST: z.union([z.ipv4(), z.ipv6()], { error: "must be an IP address such as 127.0.0.1 or 0.0.0.0" })
    .optional(),
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
  // E-mail to the repair shops (docs/submissions-and-announcements.md "E-mail to the repair shops").
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
  MAIL_FROM: z.email({ error: "must be an e-mail address" }).optional(),
  // Not in D2: an operator's switch for load tests from one address (bench). On unless set to "off".
  RATE_LIMITS: z.enum(["on", "off"]).default("on"),
  // Logs and metrics (docs/operations.md "Logs", "Metrics"). The format's default depends on APP_ENV.
  LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  // A scraper's bearer token; long enough that guessing it is hopeless. Unset: no /metrics at all.
  METRICS_TOKEN: z.string().min(16).optional(),
  // Not in D2 (docs/security.md "Database time bounds and text input"): database time bounds, in
  // milliseconds; 0 turns a server-side one off.
  DB_CONNECT_TIMEOUT_MS: positiveInt(5_000),
  DB_STATEMENT_TIMEOUT_MS: wholeOrZero(15_000),
  DB_LOCK_TIMEOUT_MS: wholeOrZero(5_000),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: wholeOrZero(60_000),
  DB_HEALTH_TIMEOUT_MS: positiveInt(2_000),
  // Every page, CSV export and announcement shows times in this zone (io/time_zone.ts).
  DEPOT_TIME_ZONE: z.string().transform((name, ctx) => {
    const zone = canonicalTimeZone(name);
    if (!zone) {
      ctx.addIssue({ code: "custom", message: "must be an IANA time zone name such as Australia/Sydney" });
    }
    return zone ?? z.NEVER;
  }).default("UTC"),
  // Photo storage (io/photo_storage.ts); the S3_* variables serve PHOTO_STORE=s3 and photos:migrate --to s3.
  PHOTO_STORE: z.enum(PHOTO_STORES).default("disk"),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/).optional(),
  S3_REGION: z.string().regex(/^[a-z0-9-]+$/).default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("false"),
  // Slow clients (docs/security.md "Slow clients: what the app does, what the proxy does"): how long a
  // request body may stall, and the slowest average it may arrive at.
  BODY_TIMEOUT_SECONDS: positiveInt(20),
  BODY_MIN_BYTES_PER_SECOND: positiveInt(4096),
  // Seconds without a request after which the process gives memory back (io/memory_reducer.ts); 0: never.
  IDLE_MEMORY_SECONDS: wholeOrZero(3),
  // Reverse proxies whose X-Forwarded-For names the client (deploy/nginx.conf); none by default.
  TRUSTED_PROXIES: z.string().transform((v) => v.split(",").map((a) => a.trim()).filter(Boolean))
    .pipe(z.array(z.union([z.ipv4(), z.ipv6()], { error: "must be IP addresses separated by commas" })))
    .optional(),
  // Not in D2 (docs/performance.md "Memory and start-up"): thumbnails decoded at once, the rest wait.
  THUMBNAIL_CONCURRENCY: positiveInt(navigator.hardwareConcurrency),
  // The key before a rotation, accepted beside PUBLIC_KEY until every phone has the new one
  // (docs/operations.md "Rotating the public key").
  PUBLIC_KEY_PREVIOUS: z.string().min(1).optional(),
  // The roles the handler acts for (docs/handler.md "Who the handler acts for"); drivers by default.
  HANDLER_ROLES: z.string().transform((v) => [...new Set(v.split(",").map((r) => r.trim()).filter(Boolean))])
    .pipe(z.array(z.enum(ROLE_NAMES, { error: ROLES_PROBLEM })).min(1, { error: ROLES_PROBLEM }))
    .optional(),
  // Staged photos (docs/photos.md "Quotas"): uploaded and not yet submitted, per uploader and in total.
  STAGED_PHOTOS_PER_USER: positiveInt(200),
  STAGED_PHOTO_BYTES_TOTAL: positiveInt(5 * 1024 ** 3),
  // /readyz answers not ready below this much free space under DATA_DIR (docs/operations.md "Disk space").
  MIN_FREE_DISK_BYTES: wholeOrZero(1024 ** 3),
  // The key the repair shops' private links are derived from (docs/shop-page.md "The private link"). Unset
  // outside development: no shop has a private page.
  SHOP_LINK_SECRET: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
});

export type AppEnv = (typeof APP_ENVS)[number];
export type ChatFormat = (typeof CHAT_FORMATS)[number];
export type LogFormat = (typeof LOG_FORMATS)[number];
export type LogLevel = (typeof LOG_LEVELS)[number];
export type PhotoStoreName = (typeof PHOTO_STORES)[number];

export interface Config {
  port: number;
  /** The address the HTTP server listens on (`HOST`; tasks/serve.ts). */
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  appEnv: AppEnv;
  publicKey: string;
  appOwner: string;
  appName: string;
  publicUrl: string;
  /** SHOP_LINK_SECRET (a fixed one in development); undefined: the shops' private pages are off. */
  shopLinkSecret: string | undefined;
  uploadTokenTtlSeconds: number;
  maxPhotoBytes: number;
  chatWebhooks: { partsMovement: string | undefined; newRepairJobs: string | undefined };
  chatFormat: ChatFormat;
  /** SMTP_URL and MAIL_FROM; undefined: no e-mail is sent, the feed records it as not configured. */
  mail: MailConfig | undefined;
  rateLimits: boolean;
  /** `text` for a person at a terminal (development default), `json` lines for a log pipeline. */
  logFormat: LogFormat;
  logLevel: LogLevel;
  /** The bearer token of `GET /metrics`; undefined: metrics off (404), nothing collected. */
  metricsToken: string | undefined;
  db: DbTimeouts;
  /** IANA name, canonical spelling ("Australia/Sydney"); "UTC" by default. */
  depotTimeZone: string;
  photoStore: PhotoStoreName;
  /** Set when S3_BUCKET is (always when photoStore is s3): io/photo_stores/s3.ts. */
  s3: S3Config | undefined;
  /** A request body that sends nothing for `timeoutMs`, or less than `minBytesPerSecond` on average once
   * `timeoutMs` have passed, is refused with 408 (routes/web/body_pace.ts). */
  bodyPace: { timeoutMs: number; minBytesPerSecond: number };
  /** Peer addresses whose X-Forwarded-For is believed (routes/web/rate_limits.ts). */
  trustedProxies: string[];
  /** Quiet time after which the process gives memory back (io/memory_reducer.ts); 0: never. */
  idleMemoryMs: number;
  /** At most this many thumbnails are made at once; more requests wait their turn (lib/photos/thumbnail_jobs.ts). */
  thumbnailConcurrency: number;
  /** How often an open `/hq/live` stream checks that its session still holds (routes/hq/live.ts); fixed,
   * tests shorten it. */
  liveSessionCheckMs: number;
  /** The key before a rotation, also accepted by the handler while set (PUBLIC_KEY_PREVIOUS). */
  publicKeyPrevious: string | undefined;
  /** The roles the handler acts for (HANDLER_ROLES); any other user is answered as unknown. */
  handlerRoles: readonly (typeof ROLE_NAMES)[number][];
  /** Staged photos not yet submitted (lib/photos/quota.ts): at most this many per uploader… */
  stagedPhotosPerUser: number;
  /** …and at most this many bytes of them in all. */
  stagedPhotoBytesTotal: number;
  /** Free bytes under DATA_DIR below which /readyz answers not ready (lib/disk_space.ts); 0: no check. */
  minFreeDiskBytes: number;
}

/** How long the database may take (db/client.ts, routes/healthz.ts); 0 = no server-side bound. */
export interface DbTimeouts {
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** One statement (PostgreSQL `statement_timeout`), lock waits included. */
  statementMs: number;
  /** Waiting for one lock (PostgreSQL `lock_timeout`). */
  lockMs: number;
  /** A transaction left idle (PostgreSQL `idle_in_transaction_session_timeout`): the session is ended. */
  idleInTransactionMs: number;
  /** The whole check of `/healthz` and `/readyz`. */
  healthMs: number;
}

export interface MailConfig {
  /** smtp:// (STARTTLS when the server offers it) or smtps:// (TLS from the start), with optional user:pass. */
  smtpUrl: string;
  /** The sender address of every e-mail. */
  from: string;
}

export interface S3Config {
  /** Unset: AWS S3 itself (the SDK's endpoint for the region). */
  endpoint: string | undefined;
  bucket: string;
  region: string;
  /** Both unset: the SDK's default credential chain (environment, instance role). */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** The bucket in the path rather than the host name (MinIO, most self-hosted stores). */
  forcePathStyle: boolean;
}

export class ConfigError extends Error {}

/** `HOST`'s defaults: this machine only (development), every IPv4 interface (stage, production). */
export const LOOPBACK = "127.0.0.1";
export const ALL_INTERFACES = "0.0.0.0";

/** Development's shop link key: links made with it are worthless anywhere else, as they should be. */
const DEVELOPMENT_SHOP_LINK_SECRET = "development only: not a secret, never for production";

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
  if (e.PHOTO_STORE === "s3" && !e.S3_BUCKET) {
    throw new ConfigError("Invalid configuration: S3_BUCKET is required when PHOTO_STORE is s3");
  }
  if (e.SMTP_URL && !e.MAIL_FROM) {
    throw new ConfigError("Invalid configuration: MAIL_FROM is required when SMTP_URL is set");
  }
  if (!e.S3_ACCESS_KEY_ID !== !e.S3_SECRET_ACCESS_KEY) {
    throw new ConfigError("Invalid configuration: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together");
  }
  // A short key is guessable, and every phone carries it: outside development it must be a real secret.
  if (e.APP_ENV !== "development" && e.PUBLIC_KEY && e.PUBLIC_KEY.length < MIN_PUBLIC_KEY_LENGTH) {
    throw new ConfigError(
      `Invalid configuration: PUBLIC_KEY must be at least ${MIN_PUBLIC_KEY_LENGTH} characters when APP_ENV is ${e.APP_ENV}`,
    );
  }
  // The previous key is as much a secret as the current one while phones still send it.
  if (
    e.APP_ENV !== "development" && e.PUBLIC_KEY_PREVIOUS &&
    e.PUBLIC_KEY_PREVIOUS.length < MIN_PUBLIC_KEY_LENGTH
  ) {
    throw new ConfigError(
      `Invalid configuration: PUBLIC_KEY_PREVIOUS must be at least ${MIN_PUBLIC_KEY_LENGTH} characters when APP_ENV is ${e.APP_ENV}`,
    );
  }
  const publicKey = e.PUBLIC_KEY ?? "dev-public-key";
  if (e.PUBLIC_KEY_PREVIOUS !== undefined && e.PUBLIC_KEY_PREVIOUS === publicKey) {
    throw new ConfigError("Invalid configuration: PUBLIC_KEY_PREVIOUS must differ from PUBLIC_KEY");
  }
  return {
    port: e.PORT,
    host: e.HOST ?? (e.APP_ENV === "development" ? LOOPBACK : ALL_INTERFACES),
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    appEnv: e.APP_ENV,
    publicKey,
    appOwner: e.APP_OWNER,
    appName: e.APP_NAME,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    shopLinkSecret: e.SHOP_LINK_SECRET ??
      (e.APP_ENV === "development" ? DEVELOPMENT_SHOP_LINK_SECRET : undefined),
    uploadTokenTtlSeconds: e.UPLOAD_TOKEN_TTL_SECONDS,
    maxPhotoBytes: e.MAX_PHOTO_BYTES,
    chatWebhooks: {
      partsMovement: e.CHAT_WEBHOOK_PARTS_MOVEMENT,
      newRepairJobs: e.CHAT_WEBHOOK_NEW_REPAIR_JOBS,
    },
    chatFormat: e.CHAT_FORMAT,
    mail: e.SMTP_URL ? { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM! } : undefined,
    rateLimits: e.RATE_LIMITS === "on",
    logFormat: e.LOG_FORMAT ?? (e.APP_ENV === "development" ? "text" : "json"),
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    db: {
      connectMs: e.DB_CONNECT_TIMEOUT_MS,
      statementMs: e.DB_STATEMENT_TIMEOUT_MS,
      lockMs: e.DB_LOCK_TIMEOUT_MS,
      idleInTransactionMs: e.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      healthMs: e.DB_HEALTH_TIMEOUT_MS,
    },
    depotTimeZone: e.DEPOT_TIME_ZONE,
    photoStore: e.PHOTO_STORE,
    s3: e.S3_BUCKET
      ? {
        endpoint: e.S3_ENDPOINT,
        bucket: e.S3_BUCKET,
        region: e.S3_REGION,
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        forcePathStyle: e.S3_FORCE_PATH_STYLE === "true",
      }
      : undefined,
    bodyPace: { timeoutMs: e.BODY_TIMEOUT_SECONDS * 1000, minBytesPerSecond: e.BODY_MIN_BYTES_PER_SECOND },
    trustedProxies: e.TRUSTED_PROXIES ?? [],
    idleMemoryMs: e.IDLE_MEMORY_SECONDS * 1000,
    thumbnailConcurrency: e.THUMBNAIL_CONCURRENCY,
    liveSessionCheckMs: 5_000,
    publicKeyPrevious: e.PUBLIC_KEY_PREVIOUS,
    handlerRoles: e.HANDLER_ROLES ?? ["driver"],
    stagedPhotosPerUser: e.STAGED_PHOTOS_PER_USER,
    stagedPhotoBytesTotal: e.STAGED_PHOTO_BYTES_TOTAL,
    minFreeDiskBytes: e.MIN_FREE_DISK_BYTES,
  };
}

/** Configuration for tests: defaults plus overrides, never the process environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // Rate limits off: a test sends hundreds of requests from one address; tests of the limits turn them on.
  return { ...parseConfig({}), dataDir: "./test-output/data", rateLimits: false, ...overrides };
}
