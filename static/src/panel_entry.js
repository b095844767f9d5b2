// The Panel entry: render({model, el}) for playground/app.py's JSComponent, a host over the component's messages.

import { createHost } from "./host.js";
import { mountPlayground } from "./ui.js";

/**
 * Requests go to Python as JSON text through model.send_msg (Playground._handle_msg); replies
 * come back as JSON text through "msg:custom". Text keeps Bokeh's serializer out of the way: a
 * timeline is a few hundred KB of nested lists, which JSON handles faster and exactly.
 */
export function render({ model, el }) {
  // The full-page app (sync_url) owns the page, whose template has no viewport tag: without one a
  // phone lays the page out 980 px wide and shrinks it, and every text with it.
  if (model.sync_url && !document.querySelector('meta[name="viewport"]')) {
    const meta = document.createElement("meta");
    meta.name = "viewport";
    meta.content = "width=device-width, initial-scale=1";
    document.head.append(meta);
  }
  const listeners = new Set();
  const onMsg = (data) => {
    for (const fn of listeners) fn(data);
  };
  model.on("msg:custom", onMsg);
  const host = createHost({
    send: (msg) => model.send_msg(JSON.stringify(msg)),
    subscribe: (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  });
  const ui = mountPlayground(el, host, {
    hostKind: "server",
    program: model.program || null,
    syncUrl: Boolean(model.sync_url),
    bokehApiUrl: model.bokeh_api_url || null,
    otherHostUrl: model.site_url || null,
  });
  model.on("remove", () => {
    ui.destroy();
    host.dispose();
    listeners.clear();
    model.off?.("msg:custom", onMsg);
  });
}
