import { describe, expect, it } from '@jest/globals';
import { hasAllowedProtocol, kses, safeCss } from '../src/domain/kses.js';
import { isSafeUrl } from '../src/domain/safe-fields.js';

describe('kses (WordPress allow-lists)', () => {
  it('keeps allowed post markup and removes what runs', () => {
    expect(kses('<p class="x" onclick="y()">a</p><script>z()</script>', 'post')).toBe('<p class="x">a</p>');
    expect(kses('<table><tr><td colspan="2">c</td></tr></table>', 'post')).toBe(
      '<table><tr><td colspan="2">c</td></tr></table>',
    );
    expect(kses('<a href="jav&#x09;ascript:alert(1)">x</a>', 'post')).toBe('<a>x</a>');
    expect(kses('<img src="https://a.example/i.png" srcset="x" />', 'post')).toBe(
      '<img src="https://a.example/i.png" />',
    );
  });

  it('reduces titles to $allowedtags and term descriptions to those plus rel/target', () => {
    expect(kses('<p>a</p><b>b</b><abbr title="t">c</abbr>', 'title')).toBe(
      'a<b>b</b><abbr title="t">c</abbr>',
    );
    expect(kses('<a href="https://x.org" rel="nofollow" target="_blank">l</a>', 'title')).toBe(
      '<a href="https://x.org">l</a>',
    );
    expect(kses('<a href="https://x.org" rel="nofollow" target="_blank">l</a>', 'term')).toBe(
      '<a href="https://x.org" rel="nofollow" target="_blank">l</a>',
    );
  });

  it('encodes stray ampersands and brackets as WordPress does, leaves plain text alone', () => {
    expect(kses('Rock & Roll > Pop', 'title')).toBe('Rock &amp; Roll &gt; Pop');
    expect(kses('It\'s "quoted"', 'title')).toBe('It\'s "quoted"');
  });

  it('filters style declarations like safecss_filter_attr', () => {
    expect(safeCss('color: red; background: url(javascript:alert(1)); width: calc(100% - 2px)')).toBe(
      'color:red;width:calc(100% - 2px)',
    );
    expect(safeCss('background-image: url("https://a.example/b.png")')).toBe(
      'background-image:url("https://a.example/b.png")',
    );
    expect(safeCss('width: expression(alert(1)); x\\: y')).toBe('');
  });

  it('knows the allowed protocols and safe URLs', () => {
    expect(hasAllowedProtocol('/relative')).toBe(true);
    expect(hasAllowedProtocol('java\nscript:x')).toBe(false);
    expect(isSafeUrl('https://example.org/')).toBe(true);
    expect(isSafeUrl('tel:+331234')).toBe(true);
    expect(isSafeUrl('https://')).toBe(false);
    expect(isSafeUrl('data:image/png;base64,AA')).toBe(false);
  });
});
