// The live view's page (plant_view.h): one HTML document with its style and script, no build
// step and nothing fetched but the view's own /events.
#include <fmt/format.h>

#include "model/html.h"
#include "operator/plant_view.h"

namespace planter::op {

namespace {

constexpr const char* kHead = R"page(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>planter: seed {seed}</title>
<style>
body {{ font: 14px/1.35 "DejaVu Sans", sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }}
header {{ padding: 10px 16px; background: #1d2330; color: #fff; }}
header h1 {{ font-size: 17px; margin: 0 0 4px 0; }}
#counts span {{ margin-right: 14px; }}
#ended {{ font-weight: bold; }}
#ended a {{ color: #9cc9ff; font-weight: normal; }}
#fleet {{ position: relative; display: flex; flex-wrap: wrap; gap: 18px; padding: 16px; align-items: flex-start; }}
svg#edges {{ position: absolute; left: 0; top: 0; pointer-events: none; overflow: visible; }}
svg#edges line {{ stroke: #8a94a6; stroke-width: 1; opacity: .55; }}
section.cluster {{ background: #fff; border: 1px solid #c9ced8; border-radius: 6px; padding: 8px; min-width: 240px; max-width: 420px; z-index: 1; }}
section.cluster h2 {{ font-size: 15px; margin: 0 0 6px 0; }}
.unit {{ border-left: 6px solid #9aa3b2; background: #eef0f4; margin: 4px 0; padding: 4px 6px; border-radius: 3px; }}
.unit .why {{ display: block; font-size: 12px; color: #4a5262; word-break: break-word; }}
.unit .ext {{ display: block; font-size: 11px; color: #6b7385; }}
.unit[data-state=pending] {{ border-color: #d6a400; background: #fff8dc; }}
.unit[data-state=declaring] {{ border-color: #2f6fdf; background: #e6efff; }}
.unit[data-state=declared] {{ border-color: #1f9d55; background: #e7f7ee; }}
.unit[data-state=failed] {{ border-color: #d64545; background: #fde8e8; }}
.unit[data-state=blocked] {{ border-color: #e07b00; background: #fff0de; }}
.unit[data-state=not-chosen] {{ border-color: #c9ced8; background: #f6f7f9; color: #8a94a6; }}
</style></head>
<body>
<header><h1>seed {seed}</h1><div id="counts"></div><div id="ended"></div><div id="link"></div></header>
<div id="fleet"><svg id="edges"></svg></div>
<script>
const PLAN = {plan};
let STATE = {state};
</script>
)page";

constexpr const char* kScript = R"page(<script>
"use strict";
const fleet = document.getElementById("fleet");
const edges = document.getElementById("edges");
const boxes = [];
// A box per cluster that units go to, each unit in it, with what it waits for outside the seed.
for (const name of PLAN.clusters) {
  const units = PLAN.units.map((u, i) => [u, i]).filter(([u]) => u.cluster === name);
  if (units.length === 0) continue;
  const section = document.createElement("section");
  section.className = "cluster";
  section.dataset.cluster = name;
  const h = document.createElement("h2");
  h.textContent = name;
  section.appendChild(h);
  for (const [u, i] of units) {
    const div = document.createElement("div");
    div.className = "unit";
    div.id = "u" + i;
    div.dataset.state = "pending";
    const b = document.createElement("b");
    b.textContent = u.object;
    div.appendChild(b);
    const why = document.createElement("span");
    why.className = "why";
    div.appendChild(why);
    for (const e of u.external) {
      const ext = document.createElement("span");
      ext.className = "ext";
      ext.textContent = "needs " + e;
      div.appendChild(ext);
    }
    section.appendChild(div);
    boxes[i] = div;
  }
  fleet.appendChild(section);
}
// A line from each unit to each unit it waits for, while there are not too many to read.
function draw() {
  while (edges.firstChild) edges.removeChild(edges.firstChild);
  let count = 0;
  PLAN.units.forEach(u => count += u.requires.length);
  if (count > 3000) return;
  const origin = fleet.getBoundingClientRect();
  edges.setAttribute("width", fleet.scrollWidth);
  edges.setAttribute("height", fleet.scrollHeight);
  PLAN.units.forEach((u, i) => {
    for (const r of u.requires) {
      if (!boxes[i] || !boxes[r]) continue;
      const a = boxes[r].getBoundingClientRect(), b = boxes[i].getBoundingClientRect();
      const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      line.setAttribute("x1", a.right - origin.left);
      line.setAttribute("y1", a.top + a.height / 2 - origin.top);
      line.setAttribute("x2", b.left - origin.left);
      line.setAttribute("y2", b.top + b.height / 2 - origin.top);
      edges.appendChild(line);
    }
  });
}
const states = [];
function apply(s) {
  if (s.reload) { location.reload(); return; }
  for (const [i, u] of Object.entries(s.units)) {
    states[i] = u.state;
    const div = boxes[i];
    if (!div) continue;
    div.dataset.state = u.state;
    div.querySelector(".why").textContent = u.why;
  }
  const counts = {};
  PLAN.units.forEach((u, i) => { const st = states[i] || "pending"; counts[st] = (counts[st] || 0) + 1; });
  document.getElementById("counts").innerHTML = "";
  for (const st of ["declared", "pending", "declaring", "failed", "blocked", "not-chosen"]) {
    if (!counts[st]) continue;
    const span = document.createElement("span");
    span.dataset.count = st;
    span.textContent = counts[st] + " " + st;
    document.getElementById("counts").appendChild(span);
  }
  if (s.ended) {
    document.getElementById("ended").textContent = "ended: " + s.ended + " ";
    const a = document.createElement("a");
    a.id = "timeline";
    a.href = "timeline";
    a.textContent = "the run's timeline";
    document.getElementById("ended").appendChild(a);
  }
  draw();
}
apply(STATE);
window.addEventListener("resize", draw);
if (window.EventSource) {
  const events = new EventSource("events");
  events.onmessage = e => apply(JSON.parse(e.data));
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED && !document.getElementById("ended").textContent)
      document.getElementById("link").textContent = "not live: the run's view has stopped answering";
  };
}
</script>
</body></html>
)page";

}  // namespace

std::string plant_view_page(const std::string& seed_name, const std::string& plan,
                            const std::string& state) {
  return fmt::format(fmt::runtime(kHead), fmt::arg("seed", escape_html(seed_name)),
                     fmt::arg("plan", plan), fmt::arg("state", state)) +
         kScript;
}

}  // namespace planter::op
