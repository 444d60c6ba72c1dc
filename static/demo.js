// The demo page's tool: a pretend weather service, deterministic so that tests can rely on it.

const widget = document.querySelector("chat-widget");
const KNOWN = { Paris: [22, "sunny"], London: [14, "light rain"], Oslo: [3, "snow"], Cairo: [31, "clear"] };

export function weatherIn(city) {
  const name = String(city || "").trim() || "somewhere";
  const [degrees, sky] = KNOWN[name] ?? [
    [...name].reduce((sum, c) => sum + c.charCodeAt(0), 0) % 30,
    "cloudy",
  ];
  return `${degrees}°C and ${sky} in ${name}`;
}

widget?.registerTool({
  name: "get_weather",
  description: "The current weather in a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "The city, e.g. Paris" } },
    required: ["city"],
  },
  handler: ({ city }) => {
    const counter = /** @type {any} */ (window);
    counter.chatkeepDemoToolCalls = (counter.chatkeepDemoToolCalls ?? 0) + 1;
    return weatherIn(city);
  },
});
