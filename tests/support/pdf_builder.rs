//! Hand-written PDFs, byte by byte, for the PDF tests and the hostile-input
//! benchmark: neither depends on lopdf's writer agreeing with its reader.
#![allow(dead_code)] // Each user takes what it needs.

/// A complete PDF: objects numbered from 1 in the order given, a classic xref
/// table with exact byte offsets, and `trailer_extra` added to the trailer.
/// Object 1 must be the catalog.
pub fn pdf(objects: &[Vec<u8>], trailer_extra: &str) -> Vec<u8> {
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

pub fn obj(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

/// A stream object with a correct /Length.
pub fn stream(dict_extra: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< /Length {} {dict_extra} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

pub const FONT: &str =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

pub fn page(contents: u32, resources: &str) -> Vec<u8> {
    obj(&format!(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources {resources} /Contents {contents} 0 R >>"
    ))
}

/// A FlateDecode stream object of `data`.
pub fn flate(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(data).unwrap();
    stream("/Filter /FlateDecode", &z.finish().unwrap())
}

/// A document of one page per content stream given (objects 1..=3 are the
/// catalog, the page tree and the font; then the streams; then the pages,
/// each drawing the stream `contents[i]` names, counted from 0).
pub fn pages_drawing(streams: Vec<Vec<u8>>, contents: &[usize]) -> Vec<u8> {
    let first_stream = 4;
    let first_page = first_stream + streams.len();
    let kids: Vec<String> = (0..contents.len()).map(|i| format!("{} 0 R", first_page + i)).collect();
    let mut objects = vec![
        obj("<< /Type /Catalog /Pages 2 0 R >>"),
        obj(&format!("<< /Type /Pages /Kids [{}] /Count {} >>", kids.join(" "), contents.len())),
        obj(FONT),
    ];
    objects.extend(streams);
    objects.extend(contents.iter().map(|&c| page((first_stream + c) as u32, "<< /Font << /F1 3 0 R >> >>")));
    pdf(&objects, "")
}

pub fn text(sentence: &str) -> Vec<u8> {
    format!("BT /F1 12 Tf 72 720 Td ({sentence}) Tj ET").into_bytes()
}

