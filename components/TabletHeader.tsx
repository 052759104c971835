import { island } from "@/render/islands.tsx";
import TabletIdle from "@/islands/TabletIdle.tsx";

const TabletIdleIsland = island("TabletIdle", TabletIdle);

export interface TabletHeaderProps {
  /** Shown after the app name, e.g. "Deliver to a repair shop". */
  title?: string;
  /** The signed-in user; absent on the sign-in page. The id owns the tablet's queued work. */
  user?: { id: number; name: string; role: string };
  csrf?: string;
  /** Milliseconds until idle sign-out, for the warning countdown. */
  expiresInMs?: number;
}

/**
 * The banner of every tablet page: where you are, who is signed in, and the way out. One slim row (48 px
 * targets) so it and the flow's action bar keep to a fifth of a landscape screen, and one row in portrait
 * too (800 px wide): it never wraps; below the `lg` width the words are a size smaller and "Signed in:" is
 * left to screen readers, and a long page title or name is cut with an ellipsis rather than pushed to a
 * second row (the browser test measures it at 800×1280).
 */
export function TabletHeader({ title, user, csrf, expiresInMs }: TabletHeaderProps) {
  return (
    <header class="sticky top-0 z-20 border-b-4 border-blue-900 bg-white">
      <div class="mx-auto flex max-w-5xl flex-nowrap items-center gap-x-4 px-4 py-1" data-testid="header-row">
        <a
          href="/tablet"
          class="tablet-link flex min-h-12 shrink-0 items-center text-lg text-slate-950 no-underline lg:text-xl"
        >
          Parts Movement
        </a>
        {title && (
          <span class="min-w-0 truncate text-lg font-semibold text-slate-700 lg:text-xl" aria-hidden="true">
            / {title}
          </span>
        )}
        {user && csrf && (
          <div class="ml-auto flex min-w-0 items-center gap-3">
            <span class="min-w-0 truncate text-base">
              <span class="sr-only lg:not-sr-only">Signed in:</span>{" "}
              <strong data-testid="signed-in-user">{user.name}</strong>
            </span>
            <form method="post" action="/tablet/sign-out" class="shrink-0">
              <input type="hidden" name="_csrf" value={csrf} />
              <button type="submit" class="btn btn-secondary min-h-12 py-1">Sign out</button>
            </form>
          </div>
        )}
      </div>
      {user && csrf && expiresInMs !== undefined && (
        <TabletIdleIsland
          expiresInMs={expiresInMs}
          csrf={csrf}
          userId={user.id}
        />
      )}
    </header>
  );
}
