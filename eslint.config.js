// ESLint for the UI's JavaScript (static/): browser ES modules, the worker, the node tests and the build script.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["static/dist/**", "site/**", "node_modules/**", "artifacts/**"] },
  js.configs.recommended,
  {
    files: ["static/**/*.js", "static/**/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  { files: ["static/site/worker.js"], languageOptions: { globals: { ...globals.worker } } },
  {
    files: ["static/test/**", "static/build.mjs", "eslint.config.js"],
    languageOptions: { globals: { ...globals.node } },
  },
];
