//! IDX files (the MNIST / Fashion-MNIST container format), plain or gzip-compressed, and a
//! loader for a Fashion-MNIST directory (train and `t10k` images and labels).
//!
//! An IDX file is a 4-byte magic (`0 0 TYPE NDIMS`), `NDIMS` big-endian `u32` dimensions,
//! then the elements in row-major order. The reader checks the dimensions against the
//! bytes actually present before it keeps anything sized by them: a header that claims
//! more (or fewer) elements than the file holds is an error naming the file and the byte
//! offset, never a huge allocation or a panic. Gzip streams are decompressed only up to
//! the size the header claims plus one byte, and a claim larger than the memory limit
//! ([`MemoryLimit`]) is refused before anything is read.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{DataError, Dataset, Features, MemoryLimit};

/// The element type named by an IDX header's third magic byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdxType {
    /// `0x08`: unsigned byte.
    U8,
    /// `0x09`: signed byte.
    I8,
    /// `0x0B`: big-endian 16-bit integer.
    I16,
    /// `0x0C`: big-endian 32-bit integer.
    I32,
    /// `0x0D`: big-endian IEEE 754 single.
    F32,
    /// `0x0E`: big-endian IEEE 754 double.
    F64,
}

impl IdxType {
    fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            0x08 => Self::U8,
            0x09 => Self::I8,
            0x0B => Self::I16,
            0x0C => Self::I32,
            0x0D => Self::F32,
            0x0E => Self::F64,
            _ => return None,
        })
    }

    /// Bytes per element.
    #[must_use]
    pub fn size(self) -> usize {
        match self {
            Self::U8 | Self::I8 => 1,
            Self::I16 => 2,
            Self::I32 | Self::F32 => 4,
            Self::F64 => 8,
        }
    }
}

/// The contents of one IDX file: element type, dimensions and the raw element bytes
/// (big-endian, row-major).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdxArray {
    /// Element type.
    pub kind: IdxType,
    /// Dimensions, outermost first.
    pub dims: Vec<usize>,
    /// `product(dims) * kind.size()` bytes.
    pub bytes: Vec<u8>,
}

/// Grey-scale images, `count` of them with `rows x cols` pixels, row-major, one byte per pixel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Images {
    /// Number of images.
    pub count: usize,
    /// Pixel rows per image.
    pub rows: usize,
    /// Pixel columns per image.
    pub cols: usize,
    /// `count * rows * cols` pixels; image `i` is `pixels[i * rows * cols..][..rows * cols]`.
    pub pixels: Vec<u8>,
}

impl Images {
    /// Pixels per image.
    #[must_use]
    pub fn pixels_per_image(&self) -> usize {
        self.rows * self.cols
    }

    /// The pixels of image `i`.
    ///
    /// # Panics
    /// If `i >= count` (a caller bug).
    #[must_use]
    pub fn image(&self, i: usize) -> &[u8] {
        let n = self.pixels_per_image();
        &self.pixels[i * n..(i + 1) * n]
    }
}

/// Images with one class label each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelledImages {
    /// The images.
    pub images: Images,
    /// One label per image.
    pub labels: Vec<u8>,
}

impl LabelledImages {
    /// Reads an image file and a label file and checks that they agree in count.
    ///
    /// # Errors
    /// Any error of [`read_images`] or [`read_labels`]; [`DataError::Binary`] (offset 4 of
    /// the label file, its count) if the counts differ.
    pub fn read(images: &Path, labels: &Path) -> Result<Self, DataError> {
        Self::read_within(images, labels, &MemoryLimit::available())
    }

    /// [`read`](Self::read) within `limit`.
    ///
    /// # Errors
    /// As [`read`](Self::read), and [`DataError::TooLarge`] for a file whose header claims
    /// more than `limit`.
    pub fn read_within(images: &Path, labels: &Path, limit: &MemoryLimit) -> Result<Self, DataError> {
        let images = read_images_within(images, limit)?;
        let label_bytes = read_labels_within(labels, limit)?;
        if label_bytes.len() != images.count {
            return Err(DataError::binary(
                labels,
                4,
                format!("{} labels for {} images", label_bytes.len(), images.count),
            ));
        }
        Ok(Self { images, labels: label_bytes })
    }

    /// The images and labels at `rows`, in the given order.
    ///
    /// # Panics
    /// If an index is not below the number of images (a caller bug, not bad input).
    #[must_use]
    pub fn select(&self, rows: &[usize]) -> Self {
        let mut pixels = Vec::with_capacity(rows.len() * self.images.pixels_per_image());
        for &r in rows {
            pixels.extend_from_slice(self.images.image(r));
        }
        Self {
            images: Images { count: rows.len(), pixels, ..self.images },
            labels: rows.iter().map(|&r| self.labels[r]).collect(),
        }
    }

    /// A [`Dataset`] with one real feature per pixel (`value / 255`, in `[0, 1]`) and classes
    /// `0..n_classes` named by `class_names` (or by their numbers when it is empty).
    ///
    /// # Errors
    /// [`DataError::Encode`] if a label is not below the number of classes.
    pub fn to_dataset(&self, name: &str, class_names: &[&str]) -> Result<Dataset, DataError> {
        self.to_dataset_within(name, class_names, &MemoryLimit::available())
    }

    /// [`to_dataset`](Self::to_dataset) within `limit` (eight bytes per pixel).
    ///
    /// # Errors
    /// As [`to_dataset`](Self::to_dataset), and [`DataError::TooLarge`] when the features
    /// would pass `limit`.
    pub fn to_dataset_within(
        &self,
        name: &str,
        class_names: &[&str],
        limit: &MemoryLimit,
    ) -> Result<Dataset, DataError> {
        let need = (self.images.pixels.len() as u64).checked_mul(8);
        limit.check(
            name,
            &format!("{} images of {} pixels as numbers", self.images.count, self.images.pixels_per_image()),
            need,
        )?;
        let max = self.labels.iter().copied().max().map_or(0, usize::from);
        let names: Vec<String> = if class_names.is_empty() {
            (0..=max).map(|c| c.to_string()).collect()
        } else {
            class_names.iter().map(|s| (*s).to_owned()).collect()
        };
        if max >= names.len() && !self.labels.is_empty() {
            return Err(DataError::Encode(format!("{name}: label {max} but only {} classes", names.len())));
        }
        let n = self.images.pixels_per_image();
        Ok(Dataset {
            name: name.to_owned(),
            features: Features::Real {
                n_features: n,
                values: self.images.pixels.iter().map(|&p| f64::from(p) / 255.0).collect(),
                names: (0..n).map(|i| format!("px{i}")).collect(),
            },
            labels: self.labels.iter().map(|&l| u32::from(l)).collect(),
            class_names: names,
        })
    }
}

/// The ten Fashion-MNIST classes, in label order.
pub const FASHION_MNIST_CLASSES: [&str; 10] = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
];

/// Where Debian's `dataset-fashion-mnist` package installs the files.
pub const FASHION_MNIST_DIR: &str = "/usr/share/datasets/fashion-mnist";

/// Fashion-MNIST (or MNIST): the training and test sets of one directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageSplits {
    /// `train-images-idx3-ubyte[.gz]` with `train-labels-idx1-ubyte[.gz]`.
    pub train: LabelledImages,
    /// `t10k-images-idx3-ubyte[.gz]` with `t10k-labels-idx1-ubyte[.gz]`.
    pub test: LabelledImages,
}

/// Loads the four MNIST-layout files of `dir`, each plain or with `.gz` (the plain file is
/// used when both exist).
///
/// # Errors
/// [`DataError::Io`] naming the missing file if one of the four is absent; otherwise any
/// error of [`LabelledImages::read`].
pub fn read_image_dir(dir: &Path) -> Result<ImageSplits, DataError> {
    read_image_dir_within(dir, &MemoryLimit::available())
}

/// [`read_image_dir`] within `limit` (each file's claim is checked against the memory
/// left when it is read).
///
/// # Errors
/// As [`read_image_dir`], and [`DataError::TooLarge`].
pub fn read_image_dir_within(dir: &Path, limit: &MemoryLimit) -> Result<ImageSplits, DataError> {
    let part = |prefix: &str| -> Result<LabelledImages, DataError> {
        let images = find(dir, &format!("{prefix}-images-idx3-ubyte"))?;
        let labels = find(dir, &format!("{prefix}-labels-idx1-ubyte"))?;
        LabelledImages::read_within(&images, &labels, limit)
    };
    Ok(ImageSplits { train: part("train")?, test: part("t10k")? })
}

/// `dir/stem` if it exists, else `dir/stem.gz`.
fn find(dir: &Path, stem: &str) -> Result<PathBuf, DataError> {
    let plain = dir.join(stem);
    if plain.is_file() {
        return Ok(plain);
    }
    let gz = dir.join(format!("{stem}.gz"));
    if gz.is_file() {
        return Ok(gz);
    }
    Err(DataError::Io {
        path: gz.display().to_string(),
        source: std::io::Error::new(std::io::ErrorKind::NotFound, format!("no {stem} or {stem}.gz here")),
    })
}

/// Reads an IDX file of unsigned bytes with three dimensions (count, rows, columns).
///
/// # Errors
/// Any error of [`read_idx`]; [`DataError::Binary`] at offset 2 if the file is not
/// unsigned bytes in three dimensions.
pub fn read_images(path: &Path) -> Result<Images, DataError> {
    read_images_within(path, &MemoryLimit::available())
}

/// [`read_images`] within `limit`.
///
/// # Errors
/// As [`read_images`], and [`DataError::TooLarge`].
pub fn read_images_within(path: &Path, limit: &MemoryLimit) -> Result<Images, DataError> {
    let a = read_idx_within(path, limit)?;
    expect_shape(&a, 3, path)?;
    Ok(Images { count: a.dims[0], rows: a.dims[1], cols: a.dims[2], pixels: a.bytes })
}

/// Reads an IDX file of unsigned bytes with one dimension (the labels).
///
/// # Errors
/// Any error of [`read_idx`]; [`DataError::Binary`] at offset 2 if the file is not
/// unsigned bytes in one dimension.
pub fn read_labels(path: &Path) -> Result<Vec<u8>, DataError> {
    read_labels_within(path, &MemoryLimit::available())
}

/// [`read_labels`] within `limit`.
///
/// # Errors
/// As [`read_labels`], and [`DataError::TooLarge`].
pub fn read_labels_within(path: &Path, limit: &MemoryLimit) -> Result<Vec<u8>, DataError> {
    let a = read_idx_within(path, limit)?;
    expect_shape(&a, 1, path)?;
    Ok(a.bytes)
}

fn expect_shape(a: &IdxArray, ndims: usize, path: &Path) -> Result<(), DataError> {
    if a.kind != IdxType::U8 || a.dims.len() != ndims {
        return Err(DataError::binary(
            path,
            2,
            format!(
                "expected unsigned bytes in {ndims} dimension(s), found {:?} in {} dimension(s)",
                a.kind,
                a.dims.len()
            ),
        ));
    }
    Ok(())
}

/// Reads an IDX file, gunzipping it first if its name ends in `.gz`.
///
/// # Errors
/// [`DataError::Io`] if the file cannot be opened, read or decompressed;
/// [`DataError::Binary`] (with the byte offset, counted in the decompressed stream) if the
/// magic is wrong, the header is cut short, or the element count the dimensions give
/// disagrees with the bytes that follow the header.
pub fn read_idx(path: &Path) -> Result<IdxArray, DataError> {
    read_idx_within(path, &MemoryLimit::available())
}

/// [`read_idx`], refusing a header that claims more than `limit` before reading the data.
///
/// # Errors
/// As [`read_idx`], and [`DataError::TooLarge`].
pub fn read_idx_within(path: &Path, limit: &MemoryLimit) -> Result<IdxArray, DataError> {
    let io = |source| DataError::Io { path: path.display().to_string(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    let gz = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    if gz {
        parse_idx(flate2::read::GzDecoder::new(std::io::BufReader::new(file)), None, path, limit)
    } else {
        let len = file.metadata().map_err(io)?.len();
        parse_idx(std::io::BufReader::new(file), Some(len), path, limit)
    }
}

/// Parses IDX file contents (gunzipped first when `gz`); `path` names them in errors.
///
/// # Errors
/// As [`read_idx`].
pub fn parse_idx_bytes(bytes: &[u8], gz: bool, path: &Path) -> Result<IdxArray, DataError> {
    let limit = MemoryLimit::available();
    if gz {
        parse_idx(flate2::read::GzDecoder::new(bytes), None, path, &limit)
    } else {
        parse_idx(bytes, Some(bytes.len() as u64), path, &limit)
    }
}

/// Parses an IDX stream; `known_len` is the total length when it is known up front.
fn parse_idx(
    mut r: impl Read,
    known_len: Option<u64>,
    path: &Path,
    limit: &MemoryLimit,
) -> Result<IdxArray, DataError> {
    let io = |source| DataError::Io { path: path.display().to_string(), source };
    let mut magic = [0u8; 4];
    let got = read_up_to(&mut r, &mut magic).map_err(io)?;
    if got < 4 {
        return Err(DataError::binary(path, got, "file ends inside the 4-byte IDX magic"));
    }
    if magic[0] != 0 || magic[1] != 0 {
        return Err(DataError::binary(path, 0, "not an IDX file (the magic must start with two zero bytes)"));
    }
    let kind = IdxType::from_code(magic[2])
        .ok_or_else(|| DataError::binary(path, 2, format!("unknown IDX element type 0x{:02x}", magic[2])))?;
    let ndims = usize::from(magic[3]);
    if ndims == 0 {
        return Err(DataError::binary(path, 3, "IDX file with zero dimensions"));
    }
    let mut dims = Vec::with_capacity(ndims);
    let mut header = 4usize;
    for _ in 0..ndims {
        let mut d = [0u8; 4];
        let got = read_up_to(&mut r, &mut d).map_err(io)?;
        if got < 4 {
            return Err(DataError::binary(
                path,
                header + got,
                format!("file ends inside the {ndims} dimensions"),
            ));
        }
        dims.push(u32::from_be_bytes(d) as usize);
        header += 4;
    }
    let claimed = dims
        .iter()
        .try_fold(kind.size() as u64, |acc, &d| acc.checked_mul(d as u64))
        .ok_or_else(|| DataError::binary(path, 4, format!("dimensions {dims:?} overflow")))?;
    let mismatch = |found: String| {
        DataError::binary(
            path,
            header,
            format!(
                "dimensions {dims:?} of {kind:?} need {claimed} data bytes after the {header}-byte header, found {found}"
            ),
        )
    };
    if let Some(len) = known_len {
        let found = len.saturating_sub(header as u64);
        if found != claimed {
            return Err(mismatch(found.to_string()));
        }
    }
    limit.check(
        &path.display().to_string(),
        &format!("the {claimed} data bytes its header claims"),
        Some(claimed),
    )?;
    // The stream is read up to one byte past the claim, so a lying header costs at most the
    // bytes actually present; the buffer grows with the data, not with the claim, and
    // never past the claim (a doubling could otherwise pass the limit).
    let mut bytes: Vec<u8> = Vec::new();
    let mut r = r.take(claimed.saturating_add(1));
    let cap = usize::try_from(claimed.saturating_add(1)).unwrap_or(usize::MAX);
    let mut filled = 0;
    loop {
        if filled == bytes.len() {
            let want = (bytes.len() * 2).max(1 << 16).min(cap);
            bytes.reserve_exact(want.saturating_sub(bytes.len()));
            bytes.resize(want.max(bytes.len()), 0);
        }
        let got = read_up_to(&mut r, &mut bytes[filled..]).map_err(io)?;
        if got == 0 {
            break;
        }
        filled += got;
    }
    bytes.truncate(filled);
    if bytes.len() as u64 > claimed {
        return Err(mismatch(format!("more than {claimed}")));
    }
    if (bytes.len() as u64) < claimed {
        return Err(mismatch(bytes.len().to_string()));
    }
    Ok(IdxArray { kind, dims, bytes })
}

/// Fills as much of `buf` as the stream holds; returns the number of bytes read.
fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Encodes an IDX file of unsigned bytes (tests and fixtures).
#[must_use]
pub fn encode_u8(dims: &[u32], data: &[u8]) -> Vec<u8> {
    let mut out = vec![0, 0, 0x08, u8::try_from(dims.len()).unwrap_or(u8::MAX)];
    for d in dims {
        out.extend_from_slice(&d.to_be_bytes());
    }
    out.extend_from_slice(data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let p = dir.join(name);
        if name.ends_with(".gz") {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(bytes).unwrap();
            std::fs::write(&p, e.finish().unwrap()).unwrap();
        } else {
            std::fs::write(&p, bytes).unwrap();
        }
        p
    }

    fn err(p: &Path) -> String {
        read_idx(p).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn reads_plain_and_gzip_alike() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..24).collect();
        let raw = encode_u8(&[2, 3, 4], &data);
        for name in ["a-idx3-ubyte", "a-idx3-ubyte.gz"] {
            let im = read_images(&write(dir.path(), name, &raw)).unwrap();
            assert_eq!((im.count, im.rows, im.cols), (2, 3, 4));
            assert_eq!(im.image(1), &data[12..]);
        }
        let labels = read_labels(&write(dir.path(), "l.gz", &encode_u8(&[3], &[7, 8, 9]))).unwrap();
        assert_eq!(labels, vec![7, 8, 9]);
    }

    #[test]
    fn lying_headers_are_errors_with_offsets() {
        let dir = tempfile::tempdir().unwrap();
        for gz in ["", ".gz"] {
            // Claims 4 billion images of 4 billion pixels: overflow of u64 is reported, no allocation.
            let huge = encode_u8(&[u32::MAX, u32::MAX, u32::MAX], &[1, 2, 3]);
            let p = write(dir.path(), &format!("huge{gz}"), &huge);
            assert!(err(&p).contains("byte 4: dimensions"), "{}", err(&p));
            // Claims 1000 bytes, holds 3.
            let short = encode_u8(&[10, 10, 10], &[1, 2, 3]);
            let p = write(dir.path(), &format!("short{gz}"), &short);
            assert!(err(&p).ends_with("byte 16: dimensions [10, 10, 10] of U8 need 1000 data bytes after the 16-byte header, found 3"), "{}", err(&p));
            // Holds more than it claims.
            let long = encode_u8(&[1, 1, 1], &[1, 2]);
            let p = write(dir.path(), &format!("long{gz}"), &long);
            assert!(err(&p).contains("need 1 data bytes"), "{}", err(&p));
            let p = write(dir.path(), &format!("magic{gz}"), &[1, 0, 8, 1, 0, 0, 0, 0]);
            assert!(err(&p).contains("byte 0: not an IDX file"), "{}", err(&p));
            let p = write(dir.path(), &format!("type{gz}"), &[0, 0, 0x42, 1, 0, 0, 0, 0]);
            assert!(err(&p).contains("byte 2: unknown IDX element type 0x42"), "{}", err(&p));
            let p = write(dir.path(), &format!("cut{gz}"), &[0, 0, 8, 3, 0, 0]);
            assert!(err(&p).contains("byte 6: file ends inside the 3 dimensions"), "{}", err(&p));
            let p = write(dir.path(), &format!("tiny{gz}"), &[0, 0]);
            assert!(err(&p).contains("byte 2: file ends inside"), "{}", err(&p));
        }
        let p = write(dir.path(), "labels3d", &encode_u8(&[1, 1, 1], &[0]));
        let e = read_labels(&p).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("byte 2: expected unsigned bytes in 1 dimension(s)"), "{e}");
        let e = err(&dir.path().join("absent"));
        assert!(e.starts_with(&dir.path().join("absent").display().to_string()), "{e}");
    }

    /// A header declaring five million 28x28 images: a plain file too short for it is
    /// refused from its length, a gzip stream from the memory limit, both before any
    /// buffer of that size exists; the pixels as numbers are checked too.
    #[test]
    fn huge_declared_counts_are_refused_before_allocation() {
        let dir = tempfile::tempdir().unwrap();
        let header = encode_u8(&[5_000_000, 28, 28], &[0; 100]);
        let p = write(dir.path(), "big-idx3-ubyte", &header);
        let e = err(&p);
        assert!(e.ends_with("need 3920000000 data bytes after the 16-byte header, found 100"), "{e}");
        let p = write(dir.path(), "big-idx3-ubyte.gz", &header);
        let e = read_idx_within(&p, &MemoryLimit::bytes(1 << 30))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("big-idx3-ubyte.gz: the 3920000000 data bytes its header claims would take 3.7 GiB, more than the 1.0 GiB"), "{e}");
        let images = LabelledImages {
            images: Images { count: 2, rows: 2, cols: 2, pixels: vec![0; 8] },
            labels: vec![0, 1],
        };
        let e = images.to_dataset_within("img", &[], &MemoryLimit::bytes(63)).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some(
                "img: 2 images of 4 pixels as numbers would take 64 bytes, more than the 63 bytes --max-memory limit"
            )
        );
        assert!(images.to_dataset_within("img", &[], &MemoryLimit::bytes(64)).is_ok());
    }

    #[test]
    fn shipped_fixture_reads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
        let s = read_image_dir(&dir).unwrap();
        assert_eq!((s.train.images.count, s.train.images.rows, s.train.images.cols), (6, 28, 28));
        assert_eq!(s.train.labels, vec![9, 0, 0, 3, 0, 2]);
        assert_eq!(s.test.labels, vec![9, 2, 1, 1]);
        assert!(s.train.images.image(0).iter().any(|&p| p > 200));
    }

    #[test]
    fn corrupt_gzip_is_an_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "bad.gz", &encode_u8(&[3], &[1, 2, 3]));
        let mut bytes = std::fs::read(&p).unwrap();
        let crc = bytes.len() - 8;
        bytes[crc] ^= 0xff;
        std::fs::write(&p, bytes).unwrap();
        assert!(matches!(read_idx(&p), Err(DataError::Io { .. })), "{}", err(&p));
    }

    #[test]
    fn image_dir_pairs_and_counts() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "train-images-idx3-ubyte.gz",
            &encode_u8(&[2, 2, 2], &[0, 255, 0, 255, 1, 2, 3, 4]),
        );
        write(dir.path(), "train-labels-idx1-ubyte", &encode_u8(&[2], &[3, 9]));
        write(dir.path(), "t10k-images-idx3-ubyte", &encode_u8(&[1, 2, 2], &[9, 9, 9, 9]));
        write(dir.path(), "t10k-labels-idx1-ubyte.gz", &encode_u8(&[2], &[1, 1]));
        let e = read_image_dir(dir.path()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.ends_with("t10k-labels-idx1-ubyte.gz: byte 4: 2 labels for 1 images"), "{e}");
        write(dir.path(), "t10k-labels-idx1-ubyte.gz", &encode_u8(&[1], &[1]));
        let s = read_image_dir(dir.path()).unwrap();
        assert_eq!(s.train.labels, vec![3, 9]);
        let d = s.train.to_dataset("f", &FASHION_MNIST_CLASSES).unwrap();
        assert_eq!(d.n_classes(), 10);
        match d.features {
            Features::Real { n_features, values, .. } => {
                assert_eq!(n_features, 4);
                assert_eq!(&values[..2], &[0.0, 1.0]);
            }
            Features::Bits(_) => panic!("pixels are real features"),
        }
        assert!(s.test.to_dataset("t", &["a"]).is_err());
    }
}
