/**
 * The core data model: every resource of interface.md plus part history and the announcement outbox.
 * Frozen once landed: later changes go in new, later-named migrations. Migrations never import app code,
 * so the status lists below are written out here on purpose.
 *
 * IDs are `integer` identity columns: they arrive in JavaScript as numbers (bigint would arrive as strings
 * through `pg`), and the protocol answers IDs as JSON numbers.
 */
import { type Kysely, sql } from "kysely";

const PART_STATUSES = [
  "Ordered",
  "Arrived",
  "Delivered to Repair Shop directly",
  "Pending Repair Shop Pick-Up",
  "Picked Up from Repair Shop",
  "Returned to HQ",
];

const list = (values: string[]) => sql.raw(values.map((v) => `'${v.replaceAll("'", "''")}'`).join(", "));

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);

  await db.schema
    .createTable("hq_locations")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("name", "text", (c) => c.notNull().unique().check(sql`length(trim(name)) > 0`))
    .execute();

  await db.schema
    .createTable("repairers")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("name", "text", (c) => c.notNull().unique().check(sql`length(trim(name)) > 0`))
    .addColumn("address", "text")
    .addColumn("active", "boolean", (c) => c.notNull().defaultTo(true))
    .execute();

  await db.schema
    .createTable("users")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn(
      "email",
      "text",
      (c) => c.notNull().check(sql`email = lower(email) and position('@' in email) > 1`),
    )
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull().check(sql`role in ('driver', 'dispatcher', 'admin')`))
    .addColumn("pin_hash", "text")
    .addColumn("active", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("home_hq_id", "integer", (c) => c.references("hq_locations.id"))
    .addColumn("failed_pin_attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("locked_until", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("users_email_key").unique().on("users").column("email").execute();

  // Claim_Form. `registration_norm` is what rego searches compare (D11): upper case, spaces and hyphens
  // removed. The trigram index keeps a contains-search fast on a million claims.
  await db.schema
    .createTable("claims")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("claim_number", "text", (c) => c.notNull().unique().check(sql`length(trim(claim_number)) > 0`))
    .addColumn("registration", "text", (c) => c.notNull())
    .addColumn(
      "registration_norm",
      "text",
      (c) =>
        c.notNull().generatedAlwaysAs(sql`upper(regexp_replace(registration, '[\\s-]', '', 'g'))`).stored(),
    )
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index claims_registration_norm_trgm on claims using gin (registration_norm gin_trgm_ops)`
    .execute(db);
  await db.schema.createIndex("claims_registration_norm").on("claims").column("registration_norm").execute();

  await db.schema
    .createTable("parts_movements")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("claim_id", "integer", (c) => c.notNull().references("claims.id"))
    .addColumn("movement_type", "text", (c) => c.notNull().check(sql`movement_type in ('direct', 'reverse')`))
    .addColumn(
      "movement_status",
      "text",
      (c) => c.notNull().check(sql`movement_status in ('Parts Picked Up', 'Parts Dropped off')`),
    )
    .addColumn("picked_up_by", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("dropped_off_by", "integer", (c) => c.references("users.id"))
    .addColumn("pick_up_at", "timestamptz", (c) => c.notNull())
    .addColumn("dropped_off_at", "timestamptz")
    .addColumn("repairer_id", "integer", (c) => c.references("repairers.id"))
    .addColumn("location_type", "text", (c) => c.check(sql`location_type = 'HQ'`))
    .addColumn("hq_location_id", "integer", (c) => c.references("hq_locations.id"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    // A direct movement is complete at once: both ends, a repair shop, the same time (interface.md 3a).
    .addCheckConstraint(
      "parts_movements_direct_shape",
      sql`movement_type <> 'direct' or (movement_status = 'Parts Dropped off' and repairer_id is not null
        and dropped_off_by is not null and dropped_off_at = pick_up_at)`,
    )
    // A reverse movement goes to an HQ location; its drop-off end is filled only by leg 2 (D20).
    .addCheckConstraint(
      "parts_movements_reverse_shape",
      sql`movement_type <> 'reverse' or (location_type = 'HQ' and hq_location_id is not null
        and (movement_status = 'Parts Picked Up' or (dropped_off_by is not null and dropped_off_at is not null)))`,
    )
    .execute();
  await db.schema.createIndex("parts_movements_claim").on("parts_movements").columns(["claim_id", "id"])
    .execute();

  // Claims_Management_Form: at most one per claim.
  await db.schema
    .createTable("claim_management")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("claim_id", "integer", (c) => c.notNull().unique().references("claims.id"))
    .addColumn("repairer_id", "integer", (c) => c.references("repairers.id"))
    .addColumn("parts_movement_id", "integer", (c) => c.references("parts_movements.id"))
    .execute();

  await db.schema
    .createTable("parts_orders")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("claim_id", "integer", (c) => c.notNull().references("claims.id"))
    .addColumn("part_no", "text", (c) => c.notNull().check(sql`length(trim(part_no)) > 0`))
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("qty_ordered", "integer", (c) => c.notNull().check(sql`qty_ordered > 0`))
    .addColumn("status", "text", (c) => c.notNull().check(sql`status in (${list(PART_STATUSES)})`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("parts_orders_claim_part_no", ["claim_id", "part_no"])
    .execute();
  await db.schema.createIndex("parts_orders_claim_status").on("parts_orders").columns(["claim_id", "status"])
    .execute();

  await db.schema
    .createTable("part_status_history")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("part_id", "integer", (c) => c.notNull().references("parts_orders.id"))
    .addColumn("from_status", "text", (c) => c.check(sql`from_status in (${list(PART_STATUSES)})`))
    .addColumn("to_status", "text", (c) => c.notNull().check(sql`to_status in (${list(PART_STATUSES)})`))
    .addColumn("changed_at", "timestamptz", (c) => c.notNull())
    .addColumn("changed_by", "integer", (c) => c.references("users.id"))
    .addColumn("via", "text", (c) => c.notNull().check(sql`via in ('import', 'dashboard', 'movement')`))
    .addColumn("reason", "text")
    .addColumn("movement_id", "integer", (c) => c.references("parts_movements.id"))
    .addCheckConstraint("part_status_history_changes", sql`from_status is distinct from to_status`)
    .execute();
  await db.schema.createIndex("part_status_history_part").on("part_status_history").columns(["part_id", "id"])
    .execute();

  // Stored photo files, content-addressed: the same bytes are one file and one row.
  await db.schema
    .createTable("photos")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("storage_key", "text", (c) => c.notNull().unique().check(sql`storage_key ~ '^[0-9a-f]{64}$'`))
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("byte_size", "integer", (c) => c.notNull().check(sql`byte_size > 0`))
    .addColumn("width", "integer", (c) => c.notNull())
    .addColumn("height", "integer", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // Parts_Uploaded_Images: the disposable staging rows of call 2a/2b.
  await db.schema
    .createTable("uploaded_images")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("part_id", "integer", (c) => c.notNull().references("parts_orders.id"))
    .addColumn("claim_id", "integer", (c) => c.notNull().references("claims.id"))
    .addColumn(
      "movement_stage",
      "text",
      (c) =>
        c.notNull().check(sql`movement_stage in ('direct_dropoff', 'reverse_pickup', 'reverse_dropoff')`),
    )
    .addColumn("uploaded_by", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("uploaded_time", "timestamptz", (c) => c.notNull())
    .addColumn("photo_id", "integer", (c) => c.references("photos.id"))
    .execute();
  await db.schema.createIndex("uploaded_images_time").on("uploaded_images").column("uploaded_time").execute();

  // Upload tokens (D17): only the SHA-256 of the token is kept; bound to one staged record and field.
  await db.schema
    .createTable("upload_tokens")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("image_id", "integer", (c) => c.notNull().references("uploaded_images.id").onDelete("cascade"))
    .addColumn("field_name", "text", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("used_at", "timestamptz")
    .execute();
  await db.schema.createIndex("upload_tokens_image").on("upload_tokens").column("image_id").execute();

  // Deliver_Parts: one per part per movement. The staged image references go null when the staging row is
  // purged (D19); the photo references keep the file for good.
  await db.schema
    .createTable("deliver_parts")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("movement_id", "integer", (c) => c.notNull().references("parts_movements.id"))
    .addColumn("part_id", "integer", (c) => c.notNull().references("parts_orders.id"))
    .addColumn("pickup", "boolean", (c) => c.notNull())
    .addColumn("delivery", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("qty_ordered", "integer", (c) => c.notNull().check(sql`qty_ordered > 0`))
    .addColumn("pickup_image_id", "integer", (c) => c.references("uploaded_images.id").onDelete("set null"))
    .addColumn("delivery_image_id", "integer", (c) => c.references("uploaded_images.id").onDelete("set null"))
    .addColumn("pickup_photo_id", "integer", (c) => c.notNull().references("photos.id"))
    .addColumn("delivery_photo_id", "integer", (c) => c.references("photos.id"))
    .addUniqueConstraint("deliver_parts_movement_part", ["movement_id", "part_id"])
    // A staged photo is used by at most one Deliver_Parts (D14).
    .addUniqueConstraint("deliver_parts_pickup_image", ["pickup_image_id"])
    .addUniqueConstraint("deliver_parts_delivery_image", ["delivery_image_id"])
    .addCheckConstraint("deliver_parts_delivery_has_photo", sql`delivery = (delivery_photo_id is not null)`)
    .execute();
  await db.schema.createIndex("deliver_parts_part").on("deliver_parts").column("part_id").execute();

  // The announcement outbox (D22): one row per announcement and channel, written in the submission's
  // transaction, drained by the worker after commit.
  await db.schema
    .createTable("announcements")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("message_id", "uuid", (c) => c.notNull().unique())
    .addColumn("movement_id", "integer", (c) => c.notNull().references("parts_movements.id"))
    .addColumn(
      "title",
      "text",
      (c) =>
        c.notNull().check(
          sql`title in ('Parts Delivered', 'Parts Picked Up From Repair Shop', 'Parts Returned to HQ')`,
        ),
    )
    .addColumn(
      "channel",
      "text",
      (c) => c.notNull().check(sql`channel in ('parts_movement', 'new_repair_jobs')`),
    )
    .addColumn("body", "jsonb", (c) => c.notNull())
    .addColumn(
      "state",
      "text",
      (c) =>
        c.notNull().defaultTo("pending").check(sql`state in ('pending', 'delivered', 'failed', 'feed_only')`),
    )
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "timestamptz", (c) => c.notNull())
    .addColumn("last_error", "text")
    .addColumn("delivered_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await sql`create index announcements_due on announcements (next_attempt_at, id) where state = 'pending'`
    .execute(db);
  await db.schema.createIndex("announcements_movement").on("announcements").column("movement_id").execute();
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (
    const table of [
      "announcements",
      "deliver_parts",
      "upload_tokens",
      "uploaded_images",
      "photos",
      "part_status_history",
      "parts_orders",
      "claim_management",
      "parts_movements",
      "claims",
      "users",
      "repairers",
      "hq_locations",
    ]
  ) {
    await db.schema.dropTable(table).execute();
  }
}
