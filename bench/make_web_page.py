#!/usr/bin/env python3
"""Writes a realistic HTML page of about SIZE bytes (default 1 MB) to stdout:
the shape of a documentation or blog page (head with scripts and styles,
header and navigation, an article of sections with paragraphs, links,
emphasis, inline code, code blocks, tables and nested lists, a sidebar, a
footer), deterministic so that runs compare."""
import random
import sys

size = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
rng = random.Random(15)
words = ("the of and to in is for on with as by that this from are be at it an or "
         "parser buffer request server client thread memory cache socket stream token "
         "value config option module function return error result handle index").split()


def sentence():
    parts = []
    for _ in range(rng.randint(8, 22)):
        w = rng.choice(words)
        r = rng.random()
        if r < 0.04:
            w = f'<a href="/docs/{w}.html">{w}</a>'
        elif r < 0.07:
            w = f"<code>{w}_{rng.choice(words)}()</code>"
        elif r < 0.09:
            w = f"<em>{w}</em>"
        elif r < 0.10:
            w = f"<strong>{w}</strong>"
        parts.append(w)
    return " ".join(parts).capitalize() + "."


def section(n):
    out = [f'<section id="s{n}"><h2>Section {n}: {rng.choice(words)} {rng.choice(words)}</h2>']
    for _ in range(rng.randint(2, 5)):
        out.append("<p>" + " ".join(sentence() for _ in range(rng.randint(2, 5))) + "</p>")
    if n % 3 == 0:
        code = "\n".join(f"    {rng.choice(words)}_{i} = {rng.choice(words)}({i}, &lt;{i}&gt;);"
                         for i in range(rng.randint(4, 12)))
        out.append(f'<div class="highlight"><pre><code class="language-cpp">int main() {{\n{code}\n}}</code></pre></div>')
    if n % 4 == 1:
        rows = "".join(f"<tr><td>{rng.choice(words)}</td><td><code>{rng.randint(1, 999)}</code></td>"
                       f"<td>{sentence()}</td></tr>" for _ in range(rng.randint(3, 8)))
        out.append(f"<table><thead><tr><th>Name</th><th>Value</th><th>Notes</th></tr></thead><tbody>{rows}</tbody></table>")
    if n % 4 == 2:
        items = []
        for _ in range(rng.randint(3, 6)):
            sub = "".join(f"<li>{sentence()}</li>" for _ in range(rng.randint(0, 3)))
            items.append(f"<li>{sentence()}" + (f"<ol>{sub}</ol>" if sub else "") + "</li>")
        out.append("<ul>" + "".join(items) + "</ul>")
    if n % 7 == 3:
        out.append(f"<blockquote><p>{sentence()}</p></blockquote>")
    out.append("</section>")
    return "\n".join(out)


head = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Benchmark page: a long article</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/assets/site.css">
<style>""" + ".c{color:#333;margin:0 auto;padding:1em}\n" * 200 + """</style>
<script>""" + "window.analytics=window.analytics||[];function t(e){analytics.push(e)}\n" * 200 + """</script>
</head><body>
<header class="site"><a class="logo" href="/"><svg width="20" height="20"><circle r="9"/></svg>Docs</a>
<nav><ul>""" + "".join(f'<li><a href="/{w}">{w}</a></li>' for w in words[:30]) + """</ul></nav></header>
<div class="layout"><aside class="toc"><ul>""" + "".join(f'<li><a href="#s{i}">Section {i}</a></li>' for i in range(60)) + """</ul></aside>
<main><article><h1>A long article</h1>
"""
tail = """</article></main></div>
<footer><p>&copy; 2026 Example</p><script src="/assets/app.js"></script></footer>
</body></html>
"""
body = []
total = len(head) + len(tail)
n = 0
while total < size:
    s = section(n)
    body.append(s)
    total += len(s) + 1
    n += 1
sys.stdout.write(head + "\n".join(body) + tail)
