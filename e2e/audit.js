// What the final DOM of every message is checked for, inside the widget's shadow root.
// Used by test_rendering.py (page.evaluate); returns {problems, ran, articles}.
() => {
  const root = document.querySelector('chat-widget').shadowRoot;
  const problems = [];
  const forbidden = 'script, iframe, frame, object, embed, form, input, style, meta, link:not([rel=stylesheet]), svg, base, textarea:not([aria-label=Message]), video, audio, source';
  const inMath = (node) => node.closest('math');
  const scope = root.querySelectorAll('.transcript article');
  for (const article of scope) {
    // The widget's own controls (icon buttons under a message, the reasoning's toggle) are
    // not content: skip them.
    const ours = [...article.querySelectorAll(':scope > .actions, :scope > .reasoning > button.thought')];
    const content = (node) => !ours.some((actions) => actions.contains(node));
    for (const node of article.querySelectorAll(forbidden)) if (content(node)) problems.push('element ' + node.tagName);
    for (const node of [...article.querySelectorAll('*')].filter(content)) {
      for (const attr of node.attributes) {
        if (/^on/i.test(attr.name)) problems.push('handler ' + attr.name + ' on ' + node.tagName);
        if (['id', 'name', 'style', 'srcdoc', 'formaction', 'xlink:href'].includes(attr.name))
          problems.push('attribute ' + attr.name + ' on ' + node.tagName);
      }
    }
    // MathML only as KaTeX writes it: a <math> right inside its .katex span, and no links.
    for (const math of article.querySelectorAll('math')) {
      if (content(math) && !math.parentElement?.classList.contains('katex')) problems.push('element MATH outside KaTeX');
    }
    for (const node of article.querySelectorAll('[href]:not(a)')) problems.push('href on ' + node.tagName);
    for (const a of article.querySelectorAll('a[href]')) {
      if (!/^(https?:|mailto:)/i.test(a.getAttribute('href'))) problems.push('link ' + a.getAttribute('href'));
      if (a.getAttribute('rel') !== 'noopener noreferrer' || a.getAttribute('target') !== '_blank')
        problems.push('link without rel/target ' + a.getAttribute('href'));
    }
    for (const img of article.querySelectorAll('img[src]')) problems.push('image ' + img.getAttribute('src'));
  }
  return {problems, ran: window.__ran, articles: scope.length};
}
