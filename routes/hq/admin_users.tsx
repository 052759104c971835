/** `/hq/admin/users` (admins only): add users, deactivate or reactivate them, reset PINs. */
import { Hono } from "hono";
import { listUsers } from "@/db/queries/users.ts";
import { addUser, resetPin, setUserActive } from "@/lib/admin/users.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import type { Notice } from "@/components/hq/ui.tsx";
import type { SessionEnv } from "@/routes/web/session.ts";
import { field, type HqContext, hqPage, mustViewer, notFoundPage, parseId } from "@/routes/hq/render.tsx";
import { UsersPage, type UsersPageData } from "@/routes/hq/admin_users_page.tsx";

const DONE: Record<string, string> = {
  added: "User added.",
  deactivated: "User deactivated; their sessions ended.",
  activated: "User reactivated.",
  pin: "PIN set; any lockout lifted.",
};

export function adminUsersRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (
    c: HqContext,
    notice: Notice | null,
    draft: UsersPageData["draft"] = { email: "", name: "", role: "driver" },
    status: 200 | 422 = 200,
  ) => {
    const viewer = mustViewer(c);
    return hqPage(
      c,
      { title: "Users", section: "users", status },
      <UsersPage
        data={{
          users: await listUsers(deps.db),
          now: deps.clock.now().toISOString(),
          selfId: viewer.userId,
          csrfToken: viewer.csrfToken,
          notice,
          draft,
        }}
      />,
    );
  };

  /** Runs an action; a refusal re-renders the page with its message. */
  const act = async (c: HqContext, work: () => Promise<string>, draft?: UsersPageData["draft"]) => {
    try {
      return c.redirect(`/hq/admin/users?done=${await work()}`, 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return show(c, { kind: "error", text: error.message }, draft, 422);
    }
  };

  app.get("/", (c) => {
    const done = DONE[c.req.query("done") ?? ""];
    return show(c, done ? { kind: "ok", text: done } : null);
  });

  app.post("/", async (c) => {
    const form = await c.req.parseBody();
    const input = { email: field(form, "email"), name: field(form, "name"), role: field(form, "role") };
    return act(c, async () => {
      await addUser(deps.db, { ...input, pin: field(form, "pin") });
      return "added";
    }, input);
  });

  app.post("/:id/active", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "user");
    const active = field(await c.req.parseBody(), "active") === "true";
    return act(c, async () => {
      await setUserActive(deps.db, { userId: id, active, actorId: mustViewer(c).userId });
      return active ? "activated" : "deactivated";
    });
  });

  app.post("/:id/pin", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "user");
    const pin = field(await c.req.parseBody(), "pin");
    return act(c, async () => {
      await resetPin(deps.db, { userId: id, pin, actorId: mustViewer(c).userId });
      return "pin";
    });
  });

  return app;
}
