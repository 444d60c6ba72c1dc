// Firefox for the cross-engine journey: puppeteer-core over WebDriver BiDi (Playwright's own
// Firefox cannot be downloaded here, and its channel for stock Firefox fails against ESR).
// Commands arrive as JSON lines on stdin, answers leave as JSON lines on stdout:
//   {"goto": url} | {"reload": true} | {"run": script} | {"close": true}
import { createInterface } from "node:readline";

// puppeteer-core is pinned with the other npm packages, in static/
const entry = "../../static/node_modules/puppeteer-core/lib/esm/puppeteer/puppeteer-core.js";
const { default: puppeteer } = await import(new URL(entry, import.meta.url).href);

const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.env.FIREFOX ?? "/usr/bin/firefox-esr",
  headless: true,
});
const page = await browser.newPage();
const answer = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
answer({ ready: await browser.version() });

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line);
  try {
    if (command.goto) await page.goto(command.goto, { waitUntil: "load" });
    else if (command.reload) await page.reload({ waitUntil: "load" });
    else if (command.run) {
      answer({ result: await page.evaluate(command.run) });
      continue;
    } else if (command.close) break;
    answer({ result: null });
  } catch (error) {
    answer({ error: String(error?.message ?? error) });
  }
}
await browser.close();
