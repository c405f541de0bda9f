// Jaxpr viewer front-end. Python renders the (escaped) HTML and the def/use table; this script
// only highlights a variable's definition and uses, and switches to the StableHLO text.
function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "jx-viewer";
  const title = document.createElement("div");
  title.className = "jx-title";
  const bar = document.createElement("div");
  bar.className = "jx-bar";
  const buttons = {};
  for (const view of ["jaxpr", "stablehlo"]) {
    const b = document.createElement("button");
    b.textContent = view === "jaxpr" ? "jaxpr" : "StableHLO";
    b.addEventListener("click", () => { model.set("view", view); model.save_changes(); });
    buttons[view] = b;
    bar.appendChild(b);
  }
  const main = document.createElement("div");
  main.className = "jx-main";
  const hlo = document.createElement("pre");
  hlo.className = "jx-hlo";
  root.append(title, bar, main, hlo);
  el.appendChild(root);

  // `def_use` (from Python) says where variable `id` is defined and used: equation ids
  function highlight(id) {
    for (const n of main.querySelectorAll(".jx-hl, .jx-def, .jx-use"))
      n.classList.remove("jx-hl", "jx-def", "jx-use");
    const entry = id ? model.get("def_use")[id] : undefined;
    if (!entry) return;
    for (const n of main.querySelectorAll(`.jx-var[data-var="${id}"]`)) n.classList.add("jx-hl");
    const mark = (site, cls) => main.querySelector(`.jx-eqn[data-eqn="${site}"]`)?.classList.add(cls);
    mark(entry.def, "jx-def");
    for (const site of entry.uses) mark(site, "jx-use");
  }
  function draw() {
    title.textContent = model.get("title");
    main.innerHTML = model.get("body_html");   // escaped by Python
    const counts = document.createElement("table");
    counts.className = "jx-counts";
    const head = counts.insertRow();
    head.innerHTML = "<th>primitive</th><th>#</th>";
    for (const [prim, n] of Object.entries(model.get("counts"))) {
      const row = counts.insertRow();
      row.insertCell().textContent = prim;
      row.insertCell().textContent = n;
    }
    main.appendChild(counts);
    highlight(model.get("selected"));
  }
  function drawView() {
    const view = model.get("view");
    main.style.display = view === "jaxpr" ? "" : "none";
    hlo.style.display = view === "stablehlo" ? "" : "none";
    hlo.textContent = model.get("stablehlo") || "lowering…";
    for (const [v, b] of Object.entries(buttons)) b.classList.toggle("jx-on", v === view);
  }
  main.addEventListener("click", (e) => {
    const v = e.target.closest(".jx-var");
    if (!v) return;
    const id = model.get("selected") === v.dataset.var ? "" : v.dataset.var;
    model.set("selected", id);
    model.save_changes();
  });
  main.addEventListener("mouseover", (e) => {
    const v = e.target.closest(".jx-var");
    if (v && !model.get("selected")) highlight(v.dataset.var);
  });
  main.addEventListener("mouseout", () => { if (!model.get("selected")) highlight(""); });
  model.on("change:body_html", draw);
  model.on("change:counts", draw);
  model.on("change:selected", () => highlight(model.get("selected")));
  model.on("change:view", drawView);
  model.on("change:stablehlo", drawView);
  draw();
  drawView();
}
export default { render };
