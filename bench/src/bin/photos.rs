//! Writes photos for the attachment benchmarks: one JPEG of noise (which compresses
//! as badly as a real photo does), and copies of it that differ in a few bytes of the
//! picture, so that each is stored as its own file.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Parser;
use image::codecs::jpeg::JpegEncoder;
use rand::{Rng, SeedableRng};

/// Write distinct JPEG photos.
#[derive(Parser, Debug)]
struct Args {
    /// The folder to write into (made if missing).
    #[arg(long)]
    out: PathBuf,
    /// How many photos.
    #[arg(long, default_value_t = 1)]
    count: u32,
    /// Width in pixels (height is three quarters of it).
    #[arg(long, default_value_t = 2000)]
    width: u32,
}

fn main() -> Result<()> {
    let args = Args::parse();
    std::fs::create_dir_all(&args.out).context("make the folder")?;
    let (w, h) = (args.width, args.width * 3 / 4);
    let mut rng = rand::rngs::StdRng::seed_from_u64(37);
    let pixels: Vec<u8> = (0..w * h * 3).map(|_| rng.random()).collect();
    let mut jpeg = Vec::new();
    JpegEncoder::new_with_quality(&mut jpeg, 90)
        .encode(&pixels, w, h, image::ExtendedColorType::Rgb8)
        .context("encode")?;
    // A place in the picture's data (past the headers) where 8 bytes may change: no
    // 0xFF there or just before, which would make a marker.
    let start = jpeg.len() / 2;
    let at = (start..jpeg.len() - 16)
        .find(|&i| jpeg[i - 1..i + 9].iter().all(|&b| b != 0xFF))
        .context("no room to mark the copies")?;
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    for n in 0..args.count {
        let mark = format!("{n:08}");
        jpeg[at..at + 8].copy_from_slice(mark.as_bytes());
        let path = args.out.join(format!("photo-{n:05}.jpg"));
        std::fs::write(&path, &jpeg).with_context(|| format!("write {}", path.display()))?;
    }
    println!("{}", jpeg.len());
    Ok(())
}
