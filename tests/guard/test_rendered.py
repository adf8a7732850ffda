"""The renderer's view: what each parser finds (the corpus in tests/data/output_cases.yaml judges it whole)."""

import re

import pytest
from markdown_it import MarkdownIt

from webapp.guard.rendered import FILE_EXTENSION_TLDS, css_urls, html_urls, markdown_targets, rendered_urls
from webapp.guard.tlds import ROOT_ZONE_TLDS
from webapp.guard.urlpolicy import UrlPolicy


def test_commonmark_definitions_anywhere_and_on_the_next_line():
    text = "![a][q]\n\n[q]:\n//next.line\n\n> [r]: //quoted\n\n- [s]:\n  <//listed>\n"
    assert set(markdown_targets(text)) >= {"//next.line", "//quoted", "//listed"}


def test_commonmark_keeps_destinations_as_written():
    assert list(markdown_targets("[x](javascript:alert(1)) ![y](HTTPS://A.B/%7e)")) == [
        "javascript:alert(1)",
        "HTTPS://A.B/%7e",
    ]


@pytest.mark.parametrize(
    ("html", "url"),
    [
        ("<img/src=//a.shop>", "//a.shop"),
        ("<img src=&#x2F;&#x2F;b.shop>", "//b.shop"),
        ("<meta http-equiv=refresh content=\"0; URL='//c.shop'\">", "//c.shop"),
        ('<img srcset="x 1x, //d.shop/y 2x">', "//d.shop/y"),
        ("<!--><img src=//e.shop>-->", "//e.shop"),
        ('<iframe srcdoc="<img src=//f.shop>">', "//f.shop"),
        ('<p data-x="//g.shop/">', "//g.shop/"),
        ('<svg><animate attributeName=href values="a;//h.shop"/></svg>', "//h.shop"),
    ],
)
def test_html_attributes(html, url):
    assert url in html_urls(html)


def test_css_escapes_comments_and_strings():
    assert "//a.shop" in css_urls("background: u\\72l(\\2f\\2f a.shop)")
    assert "//b.shop" in css_urls("@import/**/'//b.shop';")
    assert "//c.shop/x" in css_urls("background-image: image-set('//c.shop/x' 1x)")
    assert css_urls('content: "Note: plain words"') == []


def test_linkified_names_are_judged_in_prose_only():
    assert "https://evil.shop/" in rendered_urls("see evil.shop now")
    assert "https://evil.com/" in rendered_urls("mail bob@evil.com")
    assert rendered_urls("```\nevil.shop asyncio.run\n```\n`evil.shop`") == []
    assert rendered_urls("evil.shop", code_fence="```") == []  # the text continues a code block
    assert rendered_urls("Files: setup.py, README.md. Call asyncio.run(main()).") == []


def test_scheme_urls_in_code_are_judged_anyway():
    assert "https://evil.shop/x" in rendered_urls("```\ncurl https://evil.shop/x\n```")


def test_mermaid_entity_codes_are_read_as_the_html_mermaid_makes_of_them():
    block = "```mermaid\nflowchart LR\n  A[\"<img src='{}'>\"]\n```"
    assert "https://mm.evil.shop/p.png" in rendered_urls(block.format("https#58;#47;#47;mm.evil.shop/p.png"))
    assert "//mm.evil.shop/p.png" in rendered_urls(block.format("#47;#47;mm.evil.shop/p.png"))
    assert "https://mm.evil.shop/p.png" in rendered_urls(
        block.format("https#colon;#sol;#sol;mm.evil.shop/p.png")
    )


def test_every_root_zone_entry_is_one_whole_tld():
    # The list is wrapped over many lines; a name broken at a hyphen ("xn--" / "p1ai") became two bogus
    # entries and let "evil.xn--p1ai" (.рф, which markdown-it's linkify links) through.
    assert all(re.fullmatch(r"[a-z][a-z0-9]*|xn--[a-z0-9][a-z0-9\-]*[a-z0-9]", tld) for tld in ROOT_ZONE_TLDS)
    assert {"xn--p1ai", "xn--cckwcxetd", "shop", "zip"} <= ROOT_ZONE_TLDS


@pytest.mark.parametrize("name", ["evil.xn--p1ai", "evil.рф", "evil.XN--P1AI"])
def test_internationalised_tlds_in_either_spelling(name):
    assert rendered_urls(f"see {name} now") == [f"https://{name}/"]


_LINKIFY = MarkdownIt("commonmark", {"html": True, "linkify": True}).enable(
    ["linkify", "table", "strikethrough"]
)
_NAMES = [
    *(
        "evil.shop evil.xn--p1ai evil.рф пример.рф EVIL.COM evil.co.uk ev-il.io evil.shop:8080 evil。shop".split()
    ),
    *(
        "evil．shop sub.evil.shop x@evil.shop www.evil.shop evil.com/path 1.2.3.4/x evil.中国 evil.zip".split()
    ),
    *("evil.shop?x=1 evil.shop#f e.vil.museum http://evil.shop //evil.shop".split()),
]
_WRAPS = [
    *(
        "{} |see {} now|({})|[{}]|*{}*|_{}_|__{}__|**{}**|~~{}~~|<{}>|> {}|- {}|1. {}|{}.|{},|{}!|{}?".split(
            "|"
        )
    ),
    *('{};|{}:|"{}"|«{}»|({}).|x{}|_x_{}|{}_|[x]({})|![x]({})|<a href="{}">a</a>|***{}***|_a {}_'.split("|")),
    "| a | {} |\n|---|---|\n| b | c |",
]


@pytest.mark.parametrize("wrap", _WRAPS)
def test_every_link_markdown_it_linkify_makes_is_judged(wrap):
    # The renderer is the reference: a client showing answers with markdown-it + linkify links exactly
    # these; each off-list one must be among the URLs the rail judges (file-extension TLDs are left out).
    policy = UrlPolicy(["en.wikipedia.org"])
    for name in _NAMES:
        text = wrap.format(name)
        linked = re.findall(r'(?:href|src)="([^"]*)"', _LINKIFY.render(text))
        if any(not policy.allows(url if "//" in url[:8] else "https:" + url) for url in linked):
            assert policy.first_violation(rendered_urls(text)) is not None, text


def test_file_extension_tlds_are_the_one_linkify_difference_left():
    # Deliberate: "setup.py" and "README.md" in an answer are files, not links to Paraguay or Moldova.
    assert "py" in FILE_EXTENSION_TLDS
    assert "http://setup.py" in _LINKIFY.render("setup.py")
    assert rendered_urls("setup.py") == []
