"""axe-core and the phone-width checks, as every page of the product is
audited (tests/browser/test_accessibility.py, test_pay_page.py): `Audit` opens
a page, runs axe-core in it (vendored in tests/browser/vendor/, see its README)
and collects what it finds: no `serious` or `critical` violation; at 390 px the
page no wider than the screen and every cell of every table on screen and not
clipped; at both sizes no menu too narrow for its choices' text and no button
or badge wrapping its words onto two lines."""

from pathlib import Path

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text()
SIZES = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
}
BLOCKING = ("serious", "critical")

# Every cell of every table: its box on screen, and not cut off by a box that
# clips or scrolls (an ancestor narrower than the cell's content).
CLIPPED_CELLS = """width => {
  const found = [];
  for (const table of document.querySelectorAll("table")) {
    if (!table.checkVisibility()) continue;
    const name = table.dataset.testid || table.className || "table";
    if (table.scrollWidth > table.clientWidth + 1) {
      found.push("table scrolls sideways: " + name);
    }
    for (const cell of table.querySelectorAll("tbody td, tbody th")) {
      if (!cell.textContent.trim()) continue;
      const box = cell.getBoundingClientRect();
      const what = name + ": " + cell.textContent.trim().slice(0, 40);
      if (!cell.checkVisibility()) {
        found.push("hidden " + what);
        continue;
      }
      if (box.left < -1 || box.right > width + 1) {
        found.push("off screen " + what);
        continue;
      }
      if (cell.scrollWidth > cell.clientWidth + 1) found.push("clipped " + what);
      let up = cell.parentElement;
      for (; up && up !== document.body; up = up.parentElement) {
        const r = up.getBoundingClientRect();
        if (getComputedStyle(up).overflowX !== "visible"
            && (box.left < r.left - 1 || box.right > r.right + 1)) {
          found.push("clipped by its box " + what);
          break;
        }
      }
    }
  }
  return found;
}"""

# A menu's choices are read whole (a select shows its chosen option cut at its
# edge), and a button's or a badge's words stay on one line.
SQUEEZED = """() => {
  const found = [];
  const measure = document.createElement("canvas").getContext("2d");
  for (const select of document.querySelectorAll("select")) {
    if (!select.checkVisibility()) continue;
    const style = getComputedStyle(select);
    measure.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = select.clientWidth - parseFloat(style.paddingLeft)
      - parseFloat(style.paddingRight) - 20;  // the arrow
    for (const option of select.options) {
      if (measure.measureText(option.text).width > room) {
        found.push(`menu ${select.name} clips "${option.text}"`);
      }
    }
  }
  for (const box of document.querySelectorAll(".button, .badge, button")) {
    if (!box.checkVisibility() || !box.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(box);
    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (tops.size > 1) found.push(`wraps: ${box.textContent.trim()}`);
  }
  return found;
}"""


class Audit:
    """Open a page, run axe-core in it, check it fits a phone; collect findings."""

    def __init__(self, page, size, screenshot):
        self.page, self.size, self.screenshot = page, size, screenshot
        self.findings: dict[str, list[str]] = {}
        self.pages: list[str] = []

    def __call__(self, path: str, name: str) -> None:
        self.page.goto(path)
        self.check(name)

    def check(self, name: str) -> None:
        page = self.page
        page.wait_for_load_state("load")
        self.pages.append(name)
        self.screenshot(name)
        found = []
        # Evaluated through the DevTools protocol, so the pages' CSP (no inline
        # script) does not apply to the audit itself.
        page.evaluate(AXE)
        result = page.evaluate(
            """() => axe.run(document, {resultTypes: ["violations"]})
                 .then(r => r.violations.map(v => ({id: v.id, impact: v.impact,
                   help: v.help, nodes: v.nodes.map(n => n.target.join(" "))})))"""
        )
        for violation in result:
            if violation["impact"] in BLOCKING:
                found.append(
                    f"{violation['impact']} {violation['id']} ({violation['help']}):"
                    f" {violation['nodes'][:4]}"
                )
        found.extend(page.evaluate(SQUEEZED))
        if self.size["width"] < 600:
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > self.size["width"]:
                found.append(f"page is {width} px wide")
            found.extend(page.evaluate(CLIPPED_CELLS, self.size["width"]))
        if found:
            self.findings[f"{name} ({page.url})"] = found

    def assert_clean(self) -> None:
        assert self.findings == {}, "\n".join(
            f"{where}:\n  " + "\n  ".join(items)
            for where, items in self.findings.items()
        )
