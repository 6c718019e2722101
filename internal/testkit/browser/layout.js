// Reports the document's title and size, and the boxes of the elements
// matching each of the given selectors with the index of the group (an
// element matching the group selector) each is in, for Inspect.
(selectors, group) => {
  const outermostSVG = (el) => {
    let svg = null;
    for (let e = el; e; e = e.parentElement) {
      if (e instanceof SVGSVGElement) svg = e;
    }
    return svg;
  };
  const svgs = [];
  for (const svg of document.querySelectorAll("svg")) {
    if (outermostSVG(svg) === svg) svgs.push(svg);
  }
  const groups = group ? Array.from(document.querySelectorAll(group)) : [];
  const boxes = [];
  for (const selector of selectors) {
    for (const el of document.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      const data = {};
      for (const a of el.attributes) {
        if (a.name.startsWith("data-")) data[a.name.slice(5)] = a.value;
      }
      // The size its text is drawn at, in CSS pixels: the computed font
      // size, scaled as an svg scales what it draws to fit its box.
      let fontSize = parseFloat(getComputedStyle(el).fontSize) || 0;
      if (el instanceof SVGGraphicsElement && el.getScreenCTM()) {
        const m = el.getScreenCTM();
        fontSize *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
      }
      const seen = r.width > 0 && r.height > 0 &&
        el.checkVisibility({opacityProperty: true, visibilityProperty: true});
      boxes.push({
        selector: selector,
        text: (el.textContent || "").replace(/\s+/g, " ").trim(),
        data: data,
        x: r.left + window.scrollX,
        y: r.top + window.scrollY,
        width: r.width,
        height: r.height,
        visible: seen,
        fontSize: fontSize,
        svg: svgs.indexOf(outermostSVG(el)),
        group: group ? groups.indexOf(el.closest(group)) : -1,
      });
    }
  }
  const root = document.documentElement;
  return {
    title: document.title,
    viewportWidth: root.clientWidth,
    scrollWidth: root.scrollWidth,
    scrollHeight: root.scrollHeight,
    boxes: boxes,
  };
}
