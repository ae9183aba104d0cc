//! Benchmark (not a test) of hostile uploads: the worst PDFs and files that
//! can be built within the upload limits, each read as an upload is (the
//! document, then the plan), printing time and peak heap. A Worker has
//! 128 MiB for everything its isolate does; an upload should stay far below.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use groundgate::corpus::pdf::{MAX_OPERATORS, MAX_PAGES, MAX_PAGE_OPERATORS};
use groundgate::corpus::workspace::{plan_upload, Document, DocumentKind, Limits};

#[path = "../tests/support/pdf_builder.rs"]
mod pdf_builder;
use pdf_builder::{flate, obj, page, pages_drawing, pdf, stream, text, FONT};

/// The system allocator, counting the bytes live now and at the peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: f64 = 1024.0 * 1024.0;

/// A page flooded with the cheapest operator, just inside its bound.
fn flood() -> Vec<u8> {
    b"q Q ".repeat(MAX_PAGE_OPERATORS / 2)
}

/// Pages nested `depth` page-tree nodes deep.
fn deep_tree(depth: usize) -> Vec<u8> {
    // 1 catalog, 2 font, 3 content, 4 the page, then the nodes 5.. from the leaf up.
    let node = |i: usize| 5 + i;
    let mut objects = vec![obj(&format!("<< /Type /Catalog /Pages {} 0 R >>", node(depth - 1))), obj(FONT)];
    objects.push(stream("", &text("At the bottom of the tree.")));
    // The page's /Parent is not followed to find pages; the Kids are.
    objects.push(page(3, "<< /Font << /F1 2 0 R >> >>"));
    for i in 0..depth {
        let kid = if i == 0 { 4 } else { node(i - 1) };
        objects.push(obj(&format!("<< /Type /Pages /Kids [{kid} 0 R] /Count 1 >>")));
    }
    pdf(&objects, "")
}

/// `pages` pages of text, each at the bottom of its own chain of `depth`
/// page-tree nodes under one root: a tree of `pages × depth` nodes, which
/// text extraction walks once per page.
fn bushy_tree(pages: usize, depth: usize) -> Vec<u8> {
    // 1 catalog, 2 font, 3 the root; then per page: its content, the page, its chain from the leaf up.
    let root = 3;
    let first = |p: usize| 4 + p * (depth + 2);
    let kids: Vec<String> = (0..pages).map(|p| format!("{} 0 R", first(p) + 1 + depth)).collect();
    let mut objects = vec![obj(&format!("<< /Type /Catalog /Pages {root} 0 R >>")), obj(FONT)];
    objects.push(obj(&format!("<< /Type /Pages /Kids [{}] /Count {pages} >>", kids.join(" "))));
    for p in 0..pages {
        objects.push(stream("", &text(&format!("Page {p} is deep in a bushy tree."))));
        objects.push(page(first(p) as u32, "<< /Font << /F1 2 0 R >> >>"));
        for i in 0..depth {
            objects.push(obj(&format!("<< /Type /Pages /Kids [{} 0 R] /Count 1 >>", first(p) + 1 + i)));
        }
    }
    pdf(&objects, "")
}

/// Markdown of `chars` characters, none of them ASCII letters.
fn non_ascii(chars: usize) -> Vec<u8> {
    let line = "## Раздел\n\nКаждое слово здесь не ASCII — ü, 東京, ƒ, ∑, 😀.\n\n";
    line.repeat(chars / line.chars().count() + 1).chars().take(chars).collect::<String>().into_bytes()
}

/// Reads `bytes` as an upload of `kind` does, printing time, peak heap and outcome.
fn measure(name: &str, kind: DocumentKind, bytes: Vec<u8>) {
    let size = bytes.len();
    let limits = Limits::default();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let started = Instant::now();
    let outcome = Document::read(kind, "upload", bytes).and_then(|document| plan_upload("0123456789abcdef", "upload", &document, &[], &limits));
    let elapsed = started.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before) as f64 / MIB;
    let outcome = match outcome {
        Ok(plan) => format!("{} passages", plan.added.len()),
        Err(e) => format!("refused: {}", e.code()),
    };
    println!("{name:<58} {:>9.1} KiB {:>9.1} ms {peak:>8.1} MiB  {outcome}", size as f64 / 1024.0, elapsed.as_secs_f64() * 1000.0);
}

fn main() {
    println!("{:<58} {:>13} {:>12} {:>12}  outcome", "input", "file", "time", "peak heap");
    let all = |n: usize| (0..n).collect::<Vec<_>>();
    measure("one small deflate stream drawn by all 200 pages", DocumentKind::Pdf, pages_drawing(vec![flate(&flood())], &[0; MAX_PAGES]));
    let floods = MAX_OPERATORS / MAX_PAGE_OPERATORS;
    measure(
        &format!("operator flood: {floods} pages of {MAX_PAGE_OPERATORS} operators"),
        DocumentKind::Pdf,
        pages_drawing((0..floods).map(|_| flate(&flood())).collect(), &all(floods)),
    );
    let over = floods + 2;
    measure(
        &format!("content past the bound: {over} pages of that flood"),
        DocumentKind::Pdf,
        pages_drawing((0..over).map(|_| flate(&flood())).collect(), &all(over)),
    );
    measure("a page past its own bound (8 MiB of `q Q` inflated)", DocumentKind::Pdf, pages_drawing(vec![flate(&b"q Q ".repeat(2 << 20))], &[0]));
    measure("page tree 250 nodes deep", DocumentKind::Pdf, deep_tree(250));
    measure("page tree 5,000 nodes deep (past lopdf's depth limit)", DocumentKind::Pdf, deep_tree(5_000));
    measure("200 pages, each under its own chain of 100 nodes", DocumentKind::Pdf, bushy_tree(MAX_PAGES, 100));
    let pages = MAX_PAGES;
    measure(
        &format!("{pages} pages of text, each its own stream"),
        DocumentKind::Pdf,
        pages_drawing((0..pages).map(|i| flate(&text(&format!("Page {i} says the ferry leaves at {i}:15.")))).collect(), &all(pages)),
    );
    let chars = Limits::default().max_chars;
    measure(&format!("Markdown of {chars} non-ASCII characters"), DocumentKind::Markdown, non_ascii(chars));
}
