// The error banner over the graph: a program's error or a host's refusal, with its actions (renders only).

import { h, clear } from "./dom.js";

/**
 * Builds the banner. `on`: edit(intent) (delete with what uses it), show() (go to the error's
 * moment), example(id) (open the gallery example that shows the error).
 */
export function createBanner(on) {
  const el = h("div", { class: "gp-banner", "data-testid": "error", role: "alert", hidden: true });
  let dismissed = null; // the message the person dismissed: it stays hidden until it changes

  function hide() {
    el.hidden = true;
    clear(el);
  }

  return {
    el,
    /**
     * Shows `title` and `message`; `dependents` ([name, line, text]) for an edit refused
     * because of what uses a name; `canShow` offers the error's moment on the timeline.
     */
    show({ title, message, dependents = null, intent = null, canShow = false, line = null, help = null }) {
      clear(el);
      const body = h(
        "div",
        { class: "gp-banner-body" },
        h("b", { "data-testid": "error-title" }, title),
        h("div", { class: "gp-msg", "data-testid": "error-message" }, message),
      );
      if (help) {
        body.append(
          h(
            "div",
            { class: "gp-help", "data-testid": "error-help" },
            help.text,
            help.example
              ? h(
                  "button",
                  {
                    type: "button",
                    class: "gp-btn gp-link",
                    "data-testid": "error-example",
                    onclick: () => on.example(help.example),
                  },
                  "See the example",
                )
              : null,
          ),
        );
      }
      if (dependents?.length) {
        body.append(
          h("div", null, "Used by:"),
          h(
            "ul",
            null,
            dependents.map(([, l, t]) => h("li", null, `line ${l}: ${t}`)),
          ),
        );
        if (intent?.op === "delete") {
          body.append(
            h(
              "div",
              { class: "gp-row" },
              h(
                "button",
                {
                  type: "button",
                  class: "gp-btn danger",
                  "data-testid": "delete-cascade",
                  onclick: () => on.edit({ ...intent, cascade: true }),
                },
                `Delete ${intent.target} and what uses it`,
              ),
            ),
          );
        }
      }
      const actions = h("div", { class: "gp-row", style: { margin: "0" } });
      if (canShow) {
        actions.append(
          h(
            "button",
            { type: "button", class: "gp-btn", "data-testid": "error-show", onclick: () => on.show() },
            "Show",
          ),
        );
      }
      actions.append(
        h(
          "button",
          {
            type: "button",
            class: "gp-btn icon",
            "aria-label": "dismiss",
            title: "Dismiss",
            onclick: () => {
              dismissed = message;
              hide();
            },
          },
          "×",
        ),
      );
      el.append(body, actions);
      el.dataset.line = line ?? "";
      el.hidden = dismissed === message;
    },
    hide,
    /** A new result: a message dismissed before shows again. */
    forgetDismissed() {
      dismissed = null;
    },
  };
}
