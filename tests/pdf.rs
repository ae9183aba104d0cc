//! PDF uploads' text. Every PDF here is written by hand, byte by byte, so the tests do not depend
//! on lopdf's writer agreeing with its own reader.

use groundgate::api::error::DocumentError;
use groundgate::corpus::pdf::{extract, Page, MAX_CONTENT_BYTES, MAX_PAGES, MAX_PAGE_CONTENT_BYTES};

#[path = "support/pdf_builder.rs"]
mod pdf_builder;
use pdf_builder::{flate, obj, page, pages_drawing, pdf, stream, text, FONT};

fn unreadable(result: Result<Vec<Page>, DocumentError>) -> bool {
    matches!(result, Err(DocumentError::UnreadablePdf(_)))
}

/// Two pages, one sentence each, both in Helvetica (object 5).
fn two_pages() -> Vec<u8> {
    let res = "<< /Font << /F1 5 0 R >> >>";
    pdf(
        &[
            obj("<< /Type /Catalog /Pages 2 0 R >>"),
            obj("<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>"),
            page(6, res),
            page(7, res),
            obj(FONT),
            stream(
                "",
                b"BT /F1 12 Tf 72 720 Td (The Larkport ferry leaves at 7:15 am.) Tj ET",
            ),
            stream(
                "",
                b"BT /F1 12 Tf 72 720 Td (Tickets are sold on board.) Tj ET",
            ),
        ],
        "",
    )
}

/// One page whose only content is drawing an 1x1 image.
fn image_only() -> Vec<u8> {
    pdf(
        &[
            obj("<< /Type /Catalog /Pages 2 0 R >>"),
            obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
            page(4, "<< /XObject << /Im1 5 0 R >> >>"),
            stream("", b"q 100 0 0 100 72 600 cm /Im1 Do Q"),
            stream(
                "/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8",
                b"A",
            ),
        ],
        "",
    )
}

/// Both pages in order, each with its number.
#[test]
fn two_pages_in_order_with_their_numbers() {
    let pages = extract(&two_pages()).unwrap();
    let read: Vec<(u32, &str)> = pages.iter().map(|p| (p.number, p.text.as_str())).collect();
    assert_eq!(read, [(1, "The Larkport ferry leaves at 7:15 am."), (2, "Tickets are sold on board.")]);
}

#[test]
fn flate_compressed_content_is_read() {
    // Real-world content streams are almost always FlateDecode.
    let bytes = pdf(
        &[
            obj("<< /Type /Catalog /Pages 2 0 R >>"),
            obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
            page(4, "<< /Font << /F1 5 0 R >> >>"),
            flate(b"BT /F1 12 Tf 72 720 Td [(The Lark)-20(port ferry)] TJ ET"),
            obj(FONT),
        ],
        "",
    );
    assert_eq!(extract(&bytes).unwrap()[0].text, "The Larkport ferry");
}

#[test]
fn garbage_is_malformed() {
    for bytes in [&b""[..], b"hello, world", b"%PDF-1.7\n", &[0xFF; 64]] {
        assert!(unreadable(extract(bytes)), "{bytes:?}");
    }
}

#[test]
fn truncated_is_malformed() {
    // Cut inside object 3 (page 1): no xref, no trailer, and the scan-for-objects
    // recovery finds a catalog whose page tree points at objects that are gone.
    let full = two_pages();
    let cut = full.windows(8).position(|w| w == b"3 0 obj\n").unwrap() + 20;
    assert!(unreadable(extract(&full[..cut])));
}

#[test]
fn every_prefix_returns() {
    // Any truncation point: an error or (when recovery finds the pages) text, never a panic.
    let full = two_pages();
    for n in 0..full.len() {
        let _ = extract(&full[..n]);
    }
}

#[test]
fn encrypt_in_trailer_is_encrypted() {
    let res = "<< /Font << /F1 5 0 R >> >>";
    let hex32 = "<".to_string() + &"AB".repeat(32) + ">";
    let bytes = pdf(
        &[
            obj("<< /Type /Catalog /Pages 2 0 R >>"),
            obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
            page(4, res),
            stream("", b"BT /F1 12 Tf 72 720 Td (secret) Tj ET"),
            obj(FONT),
            obj(&format!(
                "<< /Filter /Standard /V 1 /R 2 /O {hex32} /U {hex32} /P -4 >>"
            )),
        ],
        "/Encrypt 6 0 R /ID [<0123456789ABCDEF0123456789ABCDEF> <0123456789ABCDEF0123456789ABCDEF>]",
    );
    assert!(matches!(extract(&bytes), Err(DocumentError::UnreadablePdf(why)) if why.contains("encrypted")));
}

#[test]
fn image_only_page_is_no_text() {
    assert_eq!(extract(&image_only()), Err(DocumentError::NoText));
}

#[test]
fn empty_content_stream_is_no_text() {
    let bytes = pdf(
        &[
            obj("<< /Type /Catalog /Pages 2 0 R >>"),
            obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
            page(4, "<< >>"),
            stream("", b""),
        ],
        "",
    );
    assert_eq!(extract(&bytes), Err(DocumentError::NoText));
}

#[test]
fn page_cap_stops_at_max_pages() {
    let n = MAX_PAGES + 5;
    let streams = (0..n).map(|i| stream("", &text(&format!("Page {}.", i + 1)))).collect();
    let pages = extract(&pages_drawing(streams, &(0..n).collect::<Vec<_>>())).unwrap();
    assert_eq!(pages.len(), MAX_PAGES);
    assert_eq!(pages.last().map(|p| (p.number, p.text.as_str())), Some((MAX_PAGES as u32, format!("Page {MAX_PAGES}.").as_str())));
}

#[test]
fn a_content_stream_every_page_shares_is_read_once() {
    // One small deflate stream drawn by every page: its text once, not 200 times.
    let pages = extract(&pages_drawing(vec![flate(&text("Same page."))], &[0; MAX_PAGES])).unwrap();
    assert_eq!(pages, vec![Page { number: 1, text: "Same page.".into() }]);
}

#[test]
fn a_page_whose_content_inflates_past_its_bound_is_unreadable_and_the_others_still_count() {
    let flood = b"q Q ".repeat(MAX_PAGE_CONTENT_BYTES / 4 + 1);
    let bytes = pages_drawing(vec![flate(&flood), flate(&text("The second page."))], &[0, 1]);
    assert_eq!(extract(&bytes).unwrap(), vec![Page { number: 2, text: "The second page.".into() }]);
    // Alone, the flood is all there is: nothing read, something failed.
    assert!(unreadable(extract(&pages_drawing(vec![flate(&flood)], &[0]))));
}

#[test]
fn pages_whose_content_together_passes_the_bound_are_refused_before_any_is_decoded() {
    let per_page = MAX_PAGE_CONTENT_BYTES - 16;
    let n = MAX_CONTENT_BYTES / per_page + 1;
    let streams = (0..n).map(|i| flate(&[text(&format!("Page {i}.")), b" ".repeat(per_page - 40)].concat())).collect();
    let refused = extract(&pages_drawing(streams, &(0..n).collect::<Vec<_>>()));
    assert!(matches!(&refused, Err(DocumentError::UnreadablePdf(why)) if why.contains("MiB of content")), "{refused:?}");
}

/// xorshift64: deterministic, so a failure reproduces, and no rand dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_and_mutated_inputs_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let seeds = [two_pages(), image_only()];
    for i in 0..200 {
        let bytes: Vec<u8> = match i % 4 {
            // Pure noise, sometimes behind a PDF header so the parser goes further.
            0 | 1 => {
                let mut v: Vec<u8> = if i % 4 == 1 {
                    b"%PDF-1.4\n".to_vec()
                } else {
                    Vec::new()
                };
                v.extend((0..rng.below(2048)).map(|_| rng.next() as u8));
                v
            }
            // A valid file with a few bytes overwritten, inserted or deleted.
            _ => {
                let mut v = seeds[rng.below(seeds.len())].clone();
                for _ in 0..1 + rng.below(8) {
                    let at = rng.below(v.len());
                    match rng.below(3) {
                        0 => v[at] = rng.next() as u8,
                        1 => v.insert(at, rng.next() as u8),
                        _ => _ = v.remove(at),
                    }
                }
                v
            }
        };
        let _ = extract(&bytes);
    }
}

/// A nested page tree whose fonts are inherited from the nodes above the
/// pages (no page names its own resources): read in page order, every page's
/// text, through the tree's inheritance. (Extraction lists the pages under the root before it
/// reads them, so lopdf's walk per page is not a walk of the whole tree:
/// `scripts/bench-hostile` times it.)
#[test]
fn pages_deep_in_a_tree_keep_their_order_and_inherited_fonts() {
    // 1 catalog, 2 root, 3 font; per branch b: a node holding the font, then two pages drawing their own stream.
    let branches = 3;
    let node = |b: usize| 4 + b * 5;
    let mut objects = vec![obj("<< /Type /Catalog /Pages 2 0 R >>")];
    let kids: Vec<String> = (0..branches).map(|b| format!("{} 0 R", node(b))).collect();
    objects.push(obj(&format!("<< /Type /Pages /Kids [{}] /Count {} >>", kids.join(" "), branches * 2)));
    objects.push(obj(FONT));
    for b in 0..branches {
        let (n, pages, streams) = (node(b), [node(b) + 1, node(b) + 2], [node(b) + 3, node(b) + 4]);
        objects.push(obj(&format!(
            "<< /Type /Pages /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Kids [{} 0 R {} 0 R] /Count 2 >>",
            pages[0], pages[1]
        )));
        for s in streams {
            objects.push(obj(&format!("<< /Type /Page /Parent {n} 0 R /MediaBox [0 0 612 792] /Contents {s} 0 R >>")));
        }
        for i in 0..2 {
            objects.push(stream("", &text(&format!("Branch {b} page {i} text."))));
        }
    }
    let read = extract(&pdf(&objects, "")).unwrap();
    let numbers: Vec<u32> = read.iter().map(|p| p.number).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
    for (page, expected) in read.iter().zip((0..branches).flat_map(|b| (0..2).map(move |i| format!("Branch {b} page {i} text.")))) {
        assert_eq!(page.text, expected);
    }
}
