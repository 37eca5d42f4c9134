// The GIF writer. One palette for the whole clip, made by giflib's median cut from the first frame (the
// window's colours hardly change while it records), so colours never flicker between frames. Each later
// frame stores only the rectangle that changed, and within it the pixels that stayed as transparent, which
// LZW packs into a few codes: panels and the empty background cost almost nothing.

#include <fcntl.h>
#include <gif_lib.h>
#include <unistd.h>

extern "C" {
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

#include "render/clip/writers.hpp"
#include "spheretest/atomic_file.hpp"

namespace st::clip::detail {
namespace {

// Index 255 never holds a colour: it marks the pixels a frame leaves as the one before showed them.
constexpr int kColours = 255;
constexpr GifPixelType kTransparent = 255;
// The nearest palette entry is cached per colour at 6 bits a channel (a quarter of a million entries).
constexpr int kLookupBits = 6;

struct GifCloser {
  void operator()(GifFileType* gif) const { EGifCloseFile(gif, nullptr); }
};
struct ScalerFree {
  void operator()(SwsContext* scaler) const { sws_freeContext(scaler); }
};

class GifWriter final : public ClipWriter {
 public:
  GifWriter(const std::string& path, const std::string& temporary, const ClipInfo& info)
      : path_(path), temporary_(temporary) {
    info_ = info;
    delay_ = std::clamp(static_cast<int>(std::lround(100.0 / info.fps)), 2, 6000);
    info_.fps = 100.0 / delay_;
    // Opened here rather than by giflib, which would make the file readable by its owner alone.
    const int file = ::open(temporary_.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (file < 0) throw ClipError("cannot write '" + path_ + "': " + std::strerror(errno));
    int error = 0;
    gif_.reset(EGifOpenFileHandle(file, &error));  // giflib closes the file from here on
    if (gif_ == nullptr) ::close(file);            // it fails only before taking it
    if (gif_ == nullptr) throw ClipError("cannot write '" + path_ + "': " + GifErrorString(error));
    EGifSetGifVersion(gif_.get(), true);
    if (info_.size.width != info_.frameSize.width || info_.size.height != info_.frameSize.height) {
      scaler_.reset(sws_getContext(info_.frameSize.width, info_.frameSize.height, AV_PIX_FMT_RGB24,
                                   info_.size.width, info_.size.height, AV_PIX_FMT_RGB24, SWS_AREA, nullptr,
                                   nullptr, nullptr));
      if (scaler_ == nullptr) throw ClipError("cannot scale the frames for '" + path_ + "'");
      scaled_.resize(pixelCount() * 3);
    }
    lookup_.assign(std::size_t{1} << (3 * kLookupBits), -1);
  }

  void addFrame(std::span<const std::uint8_t> rgb) override {
    const std::size_t frameBytes =
        std::size_t(info_.frameSize.width) * std::size_t(info_.frameSize.height) * 3;
    if (rgb.size() != frameBytes) throw ClipError("a frame of the wrong size for '" + path_ + "'");
    const std::uint8_t* pixels = scale(rgb);
    if (frames_ == 0) {
      makePalette(pixels);
      writeHeader();
    }
    current_.resize(pixelCount());
    for (std::size_t i = 0; i < current_.size(); ++i)
      current_[i] = nearest(pixels[3 * i], pixels[3 * i + 1], pixels[3 * i + 2]);
    writeFrame();
    std::swap(previous_, current_);
    ++frames_;
  }

  void finish() override {
    if (frames_ == 0) throw ClipError("no frames to write to '" + path_ + "'");
    int error = 0;
    if (EGifCloseFile(gif_.release(), &error) == GIF_ERROR)
      throw ClipError("cannot write '" + path_ + "': " + GifErrorString(error));
    temporary_.commit(path_);
  }

 private:
  std::size_t pixelCount() const { return std::size_t(info_.size.width) * std::size_t(info_.size.height); }

  const std::uint8_t* scale(std::span<const std::uint8_t> rgb) {
    if (scaler_ == nullptr) return rgb.data();
    const std::uint8_t* const source[1] = {input_.copy(rgb, std::size_t(info_.frameSize.width) * 3)};
    const int sourceStride[1] = {info_.frameSize.width * 3};
    std::uint8_t* const target[1] = {scaled_.data()};
    const int targetStride[1] = {info_.size.width * 3};
    sws_scale(scaler_.get(), source, sourceStride, 0, info_.frameSize.height, target, targetStride);
    return scaled_.data();
  }

  void fail(const char* what) const {
    throw ClipError("cannot write '" + path_ + "' (" + what + "): " + GifErrorString(gif_->Error));
  }

  void makePalette(const std::uint8_t* pixels) {
    const std::size_t n = pixelCount();
    std::vector<GifByteType> red(n), green(n), blue(n), indices(n);
    for (std::size_t i = 0; i < n; ++i) {
      red[i] = pixels[3 * i];
      green[i] = pixels[3 * i + 1];
      blue[i] = pixels[3 * i + 2];
    }
    int size = kColours;
    std::array<GifColorType, 256> map{};
    if (GifQuantizeBuffer(unsigned(info_.size.width), unsigned(info_.size.height), &size, red.data(),
                          green.data(), blue.data(), indices.data(), map.data()) == GIF_ERROR)
      throw ClipError("cannot make a palette for '" + path_ + "'");
    // The median cut keeps 5 bits a channel, so its white is 248: each entry becomes the mean of the full
    // colours it stands for instead.
    std::array<std::array<double, 4>, 256> sums{};
    for (std::size_t i = 0; i < n; ++i) {
      std::array<double, 4>& sum = sums[indices[i]];
      sum[0] += red[i];
      sum[1] += green[i];
      sum[2] += blue[i];
      sum[3] += 1.0;
    }
    for (int i = 0; i < kColours; ++i) {
      const std::array<double, 4>& sum = sums[std::size_t(i)];
      if (sum[3] == 0.0) continue;
      map[std::size_t(i)] = {GifByteType(std::lround(sum[0] / sum[3])),
                             GifByteType(std::lround(sum[1] / sum[3])),
                             GifByteType(std::lround(sum[2] / sum[3]))};
    }
    palette_.assign(map.begin(), map.begin() + kColours);
  }

  GifPixelType nearest(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
    constexpr int shift = 8 - kLookupBits;
    const std::size_t key = (std::size_t(r >> shift) << (2 * kLookupBits)) |
                            (std::size_t(g >> shift) << kLookupBits) | std::size_t(b >> shift);
    std::int16_t& cached = lookup_[key];
    if (cached >= 0) return GifPixelType(cached);
    // The middle of the cell the colour falls in, so that every colour of the cell gets the same entry.
    const int half = 1 << (shift - 1);
    const int cr = (r >> shift << shift) + half, cg = (g >> shift << shift) + half,
              cb = (b >> shift << shift) + half;
    int best = 0;
    int bestDistance = 1 << 30;
    for (int i = 0; i < int(palette_.size()); ++i) {
      const GifColorType& c = palette_[std::size_t(i)];
      const int dr = c.Red - cr, dg = c.Green - cg, db = c.Blue - cb;
      const int distance = 2 * dr * dr + 4 * dg * dg + 3 * db * db;  // the eye weighs green most
      if (distance < bestDistance) {
        bestDistance = distance;
        best = i;
      }
    }
    cached = std::int16_t(best);
    return GifPixelType(best);
  }

  void writeHeader() {
    std::array<GifColorType, 256> colours{};
    std::copy(palette_.begin(), palette_.end(), colours.begin());
    ColorMapObject* map = GifMakeMapObject(256, colours.data());
    if (map == nullptr) throw ClipError("out of memory writing '" + path_ + "'");
    const int status = EGifPutScreenDesc(gif_.get(), info_.size.width, info_.size.height, 8, 0, map);
    GifFreeMapObject(map);
    if (status == GIF_ERROR) fail("screen");
    // The Netscape extension makes viewers loop the clip forever.
    static const GifByteType application[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    static const GifByteType loop[] = {1, 0, 0};
    if (EGifPutExtensionLeader(gif_.get(), APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(gif_.get(), sizeof application, application) == GIF_ERROR ||
        EGifPutExtensionBlock(gif_.get(), sizeof loop, loop) == GIF_ERROR ||
        EGifPutExtensionTrailer(gif_.get()) == GIF_ERROR)
      fail("loop");
  }

  void writeFrame() {
    const int width = info_.size.width, height = info_.size.height;
    int left = 0, top = 0, right = width, bottom = height;  // the rectangle written, [left, right)
    if (frames_ > 0) {
      left = width;
      top = height;
      right = bottom = 0;
      for (int y = 0; y < height; ++y) {
        const GifPixelType* now = current_.data() + std::size_t(y) * std::size_t(width);
        const GifPixelType* before = previous_.data() + std::size_t(y) * std::size_t(width);
        int first = 0;
        while (first < width && now[first] == before[first]) ++first;
        if (first == width) continue;
        int last = width - 1;
        while (now[last] == before[last]) --last;
        left = std::min(left, first);
        right = std::max(right, last + 1);
        top = std::min(top, y);
        bottom = y + 1;
      }
      // A frame like the one before still takes its place in time: one transparent pixel.
      if (right == 0) left = top = 0, right = bottom = 1;
    }
    GraphicsControlBlock control{};
    control.DisposalMode = DISPOSE_DO_NOT;
    control.UserInputFlag = false;
    control.DelayTime = delay_;
    control.TransparentColor = kTransparent;
    GifByteType extension[4];
    const std::size_t length = EGifGCBToExtension(&control, extension);
    if (EGifPutExtension(gif_.get(), GRAPHICS_EXT_FUNC_CODE, int(length), extension) == GIF_ERROR)
      fail("delay");
    if (EGifPutImageDesc(gif_.get(), left, top, right - left, bottom - top, false, nullptr) == GIF_ERROR)
      fail("frame");
    line_.resize(std::size_t(right - left));
    for (int y = top; y < bottom; ++y) {
      const std::size_t row = std::size_t(y) * std::size_t(width);
      for (int x = left; x < right; ++x) {
        const GifPixelType now = current_[row + std::size_t(x)];
        line_[std::size_t(x - left)] =
            frames_ > 0 && now == previous_[row + std::size_t(x)] ? kTransparent : now;
      }
      if (EGifPutLine(gif_.get(), line_.data(), right - left) == GIF_ERROR) fail("pixels");
    }
  }

  std::string path_;
  TemporaryFile temporary_;  // declared before the file handle, so removed after it is closed
  std::unique_ptr<GifFileType, GifCloser> gif_;
  std::unique_ptr<SwsContext, ScalerFree> scaler_;
  int delay_ = 5;  // hundredths of a second
  ScalerInput input_;
  std::vector<std::uint8_t> scaled_;
  std::vector<GifColorType> palette_;
  std::vector<std::int16_t> lookup_;
  std::vector<GifPixelType> current_;
  std::vector<GifPixelType> previous_;
  std::vector<GifPixelType> line_;
};

}  // namespace

std::unique_ptr<ClipWriter> openGifWriter(const std::string& path, const std::string& temporary,
                                          ClipInfo info) {
  return std::make_unique<GifWriter>(path, temporary, info);
}

}  // namespace st::clip::detail
