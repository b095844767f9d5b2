// Loads the recorded timelines in static/test/fixtures for the tests.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

export function timeline(name) {
  const dir = new URL("./fixtures/", import.meta.url);
  try {
    return JSON.parse(readFileSync(new URL(`${name}.json`, dir), "utf8"));
  } catch (e) {
    if (e.code !== "ENOENT") throw e;
    return JSON.parse(gunzipSync(readFileSync(new URL(`${name}.json.gz`, dir))).toString("utf8"));
  }
}
