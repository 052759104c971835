import assert from "node:assert/strict";
import { type Config, ConfigError, parseConfig } from "@/io/config.ts";

/** The fields of D2 (other fields may be added to Config by later decisions). */
const D2_FIELDS = [
  "port",
  "databaseUrl",
  "dataDir",
  "appEnv",
  "publicKey",
  "appOwner",
  "appName",
  "publicUrl",
  "uploadTokenTtlSeconds",
  "maxPhotoBytes",
  "chatWebhooks",
  "chatFormat",
] as const satisfies readonly (keyof Config)[];

function d2Fields(config: Config): Pick<Config, (typeof D2_FIELDS)[number]> {
  return Object.fromEntries(D2_FIELDS.map((k) => [k, config[k]])) as Pick<Config, (typeof D2_FIELDS)[number]>;
}

/** The error parseConfig throws for `env`, asserting it is a one-line ConfigError. */
function configError(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    assert.ok(!error.message.includes("\n"), `one line: ${JSON.stringify(error.message)}`);
    return error.message;
  }
  assert.fail(`${JSON.stringify(env)} should be refused`);
}

Deno.test("config D2: no variables give the documented defaults", () => {
  assert.deepEqual(d2Fields(parseConfig({})), {
    port: 8000,
    databaseUrl: undefined,
    dataDir: "./data",
    appEnv: "development",
    publicKey: "dev-public-key",
    appOwner: "depot",
    appName: "parts-movement",
    publicUrl: "http://localhost:8000",
    uploadTokenTtlSeconds: 600,
    maxPhotoBytes: 10485760,
    chatWebhooks: { partsMovement: undefined, newRepairJobs: undefined },
    chatFormat: "cliq",
  });
});

Deno.test("config D2: every variable is read into the configuration", () => {
  const config = parseConfig({
    PORT: "9100",
    DATABASE_URL: "postgres://app@db.internal:5432/parts",
    DATA_DIR: "/var/lib/parts",
    APP_ENV: "stage",
    PUBLIC_KEY: "k-123-stage-secret",
    APP_OWNER: "acme",
    APP_NAME: "parts",
    PUBLIC_URL: "https://parts.example/",
    UPLOAD_TOKEN_TTL_SECONDS: "120",
    MAX_PHOTO_BYTES: "2048",
    CHAT_WEBHOOK_PARTS_MOVEMENT: "https://chat.example/hook/1",
    CHAT_WEBHOOK_NEW_REPAIR_JOBS: "https://chat.example/hook/2",
    CHAT_FORMAT: "slack",
    // Unrelated variables of the process environment are ignored.
    PATH: "/usr/bin",
    HOME: "/root",
  });
  assert.deepEqual(d2Fields(config), {
    port: 9100,
    databaseUrl: "postgres://app@db.internal:5432/parts",
    dataDir: "/var/lib/parts",
    appEnv: "stage",
    publicKey: "k-123-stage-secret",
    appOwner: "acme",
    appName: "parts",
    publicUrl: "https://parts.example",
    uploadTokenTtlSeconds: 120,
    maxPhotoBytes: 2048,
    chatWebhooks: {
      partsMovement: "https://chat.example/hook/1",
      newRepairJobs: "https://chat.example/hook/2",
    },
    chatFormat: "slack",
  });
});

Deno.test("config D2: PUBLIC_URL defaults to localhost on the configured PORT", () => {
  assert.equal(parseConfig({ PORT: "9001" }).publicUrl, "http://localhost:9001");
});

Deno.test("config D2: postgresql:// is accepted as a DATABASE_URL too", () => {
  assert.equal(parseConfig({ DATABASE_URL: "postgresql://u@h/db" }).databaseUrl, "postgresql://u@h/db");
});

Deno.test("config D2: an empty variable counts as unset", () => {
  const config = parseConfig({
    PORT: "",
    DATABASE_URL: "",
    DATA_DIR: "",
    APP_ENV: "",
    PUBLIC_KEY: "",
    MAX_PHOTO_BYTES: "",
    CHAT_FORMAT: "",
    CHAT_WEBHOOK_PARTS_MOVEMENT: "",
  });
  assert.deepEqual(config, parseConfig({}));
});

Deno.test("config D2: a bad value is refused with one line naming the variable", () => {
  const cases: [string, string][] = [
    ["PORT", "abc"],
    ["PORT", "0"],
    ["PORT", "65536"],
    ["PORT", "80.5"],
    ["APP_ENV", "prod"],
    ["MAX_PHOTO_BYTES", "-1"],
    ["MAX_PHOTO_BYTES", "lots"],
    ["UPLOAD_TOKEN_TTL_SECONDS", "0"],
    ["DATABASE_URL", "mysql://root@localhost/parts"],
    ["DATABASE_URL", "not a url"],
    ["PUBLIC_URL", "ftp://parts.example"],
    ["CHAT_FORMAT", "xml"],
    ["CHAT_WEBHOOK_PARTS_MOVEMENT", "chat.example/hook"],
    ["CHAT_WEBHOOK_NEW_REPAIR_JOBS", "file:///etc/passwd"],
    ["APP_OWNER", "acme/../x"],
  ];
  for (const [name, value] of cases) {
    const message = configError({ [name]: value });
    assert.match(message, new RegExp(`^Invalid configuration: ${name}\\b`), `${name}=${value}: ${message}`);
  }
});

Deno.test("config D2: production refuses to start without a PUBLIC_KEY", () => {
  const envs: Record<string, string>[] = [{ APP_ENV: "production" }, {
    APP_ENV: "production",
    PUBLIC_KEY: "",
  }];
  for (const env of envs) {
    assert.match(
      configError(env),
      /^Invalid configuration: PUBLIC_KEY is required when APP_ENV is production$/,
    );
  }
  const config = parseConfig({ APP_ENV: "production", PUBLIC_KEY: "prod-key-0123456789" });
  assert.equal(config.appEnv, "production");
  assert.equal(config.publicKey, "prod-key-0123456789");
});

Deno.test("config: outside development PUBLIC_KEY must have at least 16 characters", () => {
  for (const APP_ENV of ["stage", "production"]) {
    for (const PUBLIC_KEY of ["k", "fifteen-chars-x"]) {
      assert.equal(
        configError({ APP_ENV, PUBLIC_KEY }),
        `Invalid configuration: PUBLIC_KEY must be at least 16 characters when APP_ENV is ${APP_ENV}`,
      );
    }
    assert.equal(parseConfig({ APP_ENV, PUBLIC_KEY: "sixteen-chars-xy" }).publicKey, "sixteen-chars-xy");
  }
  // Development takes any key (the demo's and the tests' are short).
  assert.equal(parseConfig({ APP_ENV: "development", PUBLIC_KEY: "k" }).publicKey, "k");
});

Deno.test("config: PUBLIC_KEY_PREVIOUS, for a rotation, is as long as PUBLIC_KEY must be and differs from it", () => {
  assert.equal(parseConfig({}).publicKeyPrevious, undefined);
  const stage = { APP_ENV: "stage", PUBLIC_KEY: "the-new-key-0123456" };
  assert.equal(
    parseConfig({ ...stage, PUBLIC_KEY_PREVIOUS: "the-old-key-0123456" }).publicKeyPrevious,
    "the-old-key-0123456",
  );
  assert.equal(
    configError({ ...stage, PUBLIC_KEY_PREVIOUS: "fifteen-chars-x" }),
    "Invalid configuration: PUBLIC_KEY_PREVIOUS must be at least 16 characters when APP_ENV is stage",
  );
  assert.equal(
    configError({ ...stage, PUBLIC_KEY_PREVIOUS: stage.PUBLIC_KEY }),
    "Invalid configuration: PUBLIC_KEY_PREVIOUS must differ from PUBLIC_KEY",
  );
  // In development a short one is accepted, but never the key in use (the default included).
  assert.equal(parseConfig({ PUBLIC_KEY_PREVIOUS: "old" }).publicKeyPrevious, "old");
  assert.equal(
    configError({ PUBLIC_KEY_PREVIOUS: "dev-public-key" }),
    "Invalid configuration: PUBLIC_KEY_PREVIOUS must differ from PUBLIC_KEY",
  );
});

Deno.test("config: HANDLER_ROLES are the roles the handler acts for, drivers by default", () => {
  assert.deepEqual(parseConfig({}).handlerRoles, ["driver"]);
  assert.deepEqual(parseConfig({ HANDLER_ROLES: " driver, admin ,driver" }).handlerRoles, [
    "driver",
    "admin",
  ]);
  for (const HANDLER_ROLES of ["drivers", "driver,root", " , "]) {
    assert.equal(
      configError({ HANDLER_ROLES }),
      "Invalid configuration: HANDLER_ROLES must be roles (driver, dispatcher, admin) separated by commas",
      HANDLER_ROLES,
    );
  }
});

Deno.test("config: the body pace and the trusted proxies", () => {
  assert.deepEqual(parseConfig({}).bodyPace, { timeoutMs: 20_000, minBytesPerSecond: 4096 });
  assert.deepEqual(parseConfig({}).trustedProxies, []);
  const config = parseConfig({
    BODY_TIMEOUT_SECONDS: "5",
    BODY_MIN_BYTES_PER_SECOND: "100",
    TRUSTED_PROXIES: "127.0.0.1, ::1",
  });
  assert.deepEqual(config.bodyPace, { timeoutMs: 5000, minBytesPerSecond: 100 });
  assert.deepEqual(config.trustedProxies, ["127.0.0.1", "::1"]);
  for (const [name, value] of [["BODY_TIMEOUT_SECONDS", "0"], ["BODY_MIN_BYTES_PER_SECOND", "x"]]) {
    assert.match(configError({ [name]: value }), new RegExp(`^Invalid configuration: ${name}\\b`));
  }
  assert.equal(
    configError({ TRUSTED_PROXIES: "127.0.0.1,proxy.internal" }),
    "Invalid configuration: TRUSTED_PROXIES must be IP addresses separated by commas",
  );
});

Deno.test("config D2: outside production the public key defaults to dev-public-key", () => {
  assert.equal(parseConfig({ APP_ENV: "stage" }).publicKey, "dev-public-key");
  assert.equal(parseConfig({ APP_ENV: "development" }).publicKey, "dev-public-key");
});

Deno.test("config D2: the start command with a bad value exits non-zero printing one line naming it", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "pm-config-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "tasks/start.ts"],
      cwd: new URL("../", import.meta.url).pathname,
      env: { PORT: "abc", DATA_DIR: dataDir, DATABASE_URL: "", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.notEqual(out.code, 0);
    const lines = stderr.split("\n").filter((l) => l.trim() !== "");
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0], /^Invalid configuration: PORT /);
    assert.equal(new TextDecoder().decode(out.stdout), "");
    // It stopped before touching the data folder.
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dataDir)), []);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("config: DEPOT_TIME_ZONE is UTC by default and takes an IANA name in its canonical spelling", () => {
  assert.equal(parseConfig({}).depotTimeZone, "UTC");
  assert.equal(parseConfig({ DEPOT_TIME_ZONE: "" }).depotTimeZone, "UTC");
  assert.equal(parseConfig({ DEPOT_TIME_ZONE: "Australia/Sydney" }).depotTimeZone, "Australia/Sydney");
  assert.equal(parseConfig({ DEPOT_TIME_ZONE: "australia/sydney" }).depotTimeZone, "Australia/Sydney");
});

Deno.test("config: a DEPOT_TIME_ZONE Intl does not know, or a bare offset, stops the start with one line", () => {
  for (const value of ["Mars/Olympus_Mons", "+10:00", "AEST", "Australia/../etc", "Europe/Lndon"]) {
    assert.match(
      configError({ DEPOT_TIME_ZONE: value }),
      /^Invalid configuration: DEPOT_TIME_ZONE must be an IANA time zone name such as Australia\/Sydney$/,
      value,
    );
  }
});

Deno.test("config: HOST defaults to loopback in development and every interface elsewhere; an IP address only", () => {
  assert.equal(parseConfig({}).host, "127.0.0.1");
  assert.equal(parseConfig({ APP_ENV: "stage" }).host, "0.0.0.0");
  assert.equal(parseConfig({ APP_ENV: "production", PUBLIC_KEY: "k".repeat(16) }).host, "0.0.0.0");
  assert.equal(parseConfig({ HOST: "0.0.0.0" }).host, "0.0.0.0");
  assert.equal(parseConfig({ APP_ENV: "stage", HOST: "::1" }).host, "::1");
  assert.equal(parseConfig({ HOST: "" }).host, "127.0.0.1", "empty counts as unset");
  assert.match(configError({ HOST: "example.com" }), /^Invalid configuration: HOST must be an IP address/);
});
