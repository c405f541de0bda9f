// Traced-vs-static view. Python renders the (escaped) HTML; hovering a name
// outlines every occurrence of it.
function render({ model, el }) {
  const root = document.createElement("div");
  el.appendChild(root);
  const draw = () => { root.innerHTML = model.get("body_html"); };
  root.addEventListener("mouseover", (e) => {
    const t = e.target.closest("[data-name]");
    for (const n of root.querySelectorAll(".jx-hl")) n.classList.remove("jx-hl");
    if (!t) return;
    for (const n of root.querySelectorAll("[data-name]"))
      if (n.dataset.name === t.dataset.name) n.classList.add("jx-hl");
  });
  model.on("change:body_html", draw);
  draw();
}
export default { render };
