//! PDF uploads' text. Every PDF here is written by hand, byte by byte, so the tests do not depend
//! on lopdf's writer agreeing with its own reader.

use groundgate::api::error::DocumentError;
use groundgate::corpus::pdf::{extract, Page, MAX_PAGES};

fn unreadable(result: Result<Vec<Page>, DocumentError>) -> bool {
    matches!(result, Err(DocumentError::UnreadablePdf(_)))
}

/// A complete PDF: objects numbered from 1 in the order given, a classic xref
/// table with exact byte offsets, and `trailer_extra` added to the trailer.
/// Object 1 must be the catalog.
fn pdf(objects: &[Vec<u8>], trailer_extra: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref_at = out.len();
    let size = objects.len() + 1;
    // Each xref entry is exactly 20 bytes, hence the two-character " \n" EOL.
    out.extend_from_slice(format!("xref\n0 {size}\n0000000000 65535 f \n").as_bytes());
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {size} /Root 1 0 R {trailer_extra} >>\nstartxref\n{xref_at}\n%%EOF\n"
        )
        .as_bytes(),
    );
    out
}

fn obj(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

/// A stream object with a correct /Length.
fn stream(dict_extra: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< /Length {} {dict_extra} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

const FONT: &str =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

fn page(contents: u32, resources: &str) -> Vec<u8> {
    obj(&format!(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources {resources} /Contents {contents} 0 R >>"
    ))
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
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(b"BT /F1 12 Tf 72 720 Td [(The Lark)-20(port ferry)] TJ ET")
        .unwrap();
    let bytes = pdf(
        &[
            obj("<< /Type /Catalog /Pages 2 0 R >>"),
            obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
            page(4, "<< /Font << /F1 5 0 R >> >>"),
            stream("/Filter /FlateDecode", &z.finish().unwrap()),
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
    // MAX_PAGES + 5 pages sharing one content stream: only MAX_PAGES come back.
    let n = MAX_PAGES + 5;
    let first_page = 5; // objects 1..=4: catalog, pages, font, content
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", first_page + i)).collect();
    let mut objects = vec![
        obj("<< /Type /Catalog /Pages 2 0 R >>"),
        obj(&format!(
            "<< /Type /Pages /Kids [{}] /Count {n} >>",
            kids.join(" ")
        )),
        obj(FONT),
        stream("", b"BT /F1 12 Tf 72 720 Td (Same page.) Tj ET"),
    ];
    objects.extend((0..n).map(|_| page(4, "<< /Font << /F1 3 0 R >> >>")));
    let pages = extract(&pdf(&objects, "")).unwrap();
    assert_eq!(pages.iter().filter(|p| p.text == "Same page.").count(), MAX_PAGES);
    assert_eq!(pages.last().map(|p| p.number), Some(MAX_PAGES as u32));
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
