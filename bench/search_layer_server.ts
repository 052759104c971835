/**
 * The service as `deno task start` serves it (tasks/serve.ts), with items of its HTTP layer left out, for the
 * bench's layer profile (bench/search_layer.ts, docs/search-path.md). `SEARCH_LAYER_OFF` lists the items to
 * leave out (routes/web/http_layer.ts names them: requestLog, securityHeaders, publicKey, bodyLimit,
 * perAddress); empty, the whole layer. Only this script reads that variable: the service itself cannot be
 * started without any part of its layer. The database must exist and be migrated (the bench's is).
 */
import "@/tasks/start_first.ts";
import { configOrExit, openConfiguredDb } from "@/tasks/setup.ts";
import { configureLogging } from "@/io/log.ts";
import { serve } from "@/tasks/serve.ts";
import { type HttpLayer, WHOLE_HTTP_LAYER } from "@/routes/web/http_layer.ts";

const off = (Deno.env.get("SEARCH_LAYER_OFF") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const unknown = off.filter((item) => !(item in WHOLE_HTTP_LAYER));
if (unknown.length > 0) throw new Error(`SEARCH_LAYER_OFF: unknown item ${unknown.join(", ")}`);
const layer: HttpLayer = { ...WHOLE_HTTP_LAYER };
for (const item of off) layer[item as keyof HttpLayer] = false;

const config = configOrExit();
configureLogging({ format: config.logFormat, level: config.logLevel });
await serve(config, await openConfiguredDb(config, "serving the bench's layer profile"), layer);
