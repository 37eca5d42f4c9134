// The video writer: libswscale turns the RGB frames into 4:2:0 YUV (BT.709, limited range, tagged as
// such), libavcodec encodes them (H.264 with libx264 for MP4, VP9 with libvpx for WebM, FFmpeg's own
// MPEG-4 part 2 or VP8 where those are missing) and libavformat writes the container. The encoders run
// with their default threads, which give the same stream on every run, and the muxers in bit-exact mode,
// so that the same frames make the same file.

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include <cmath>
#include <mutex>

#include "render/clip/writers.hpp"

namespace st::clip::detail {
namespace {

std::string avError(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof text);
  return text;
}

void quietLibraries() {
  // The encoders' start-up lines (x264's CPU flags, ...) are not the user's business; errors still show.
  static std::once_flag once;
  std::call_once(once, [] { av_log_set_level(AV_LOG_ERROR); });
}

struct CodecFree {
  void operator()(AVCodecContext* codec) const { avcodec_free_context(&codec); }
};
struct FormatFree {
  void operator()(AVFormatContext* format) const {
    if (format->pb != nullptr) avio_closep(&format->pb);
    avformat_free_context(format);
  }
};
struct FrameFree {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
struct PacketFree {
  void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};
struct ScalerFree {
  void operator()(SwsContext* scaler) const { sws_freeContext(scaler); }
};

/// Options handed to avcodec_open2 / avformat_write_header, freed whatever they leave in it.
class Options {
 public:
  void set(const char* key, const char* value) { av_dict_set(&dictionary_, key, value, 0); }
  AVDictionary** get() { return &dictionary_; }
  ~Options() { av_dict_free(&dictionary_); }

 private:
  AVDictionary* dictionary_ = nullptr;
};

class VideoWriter final : public ClipWriter {
 public:
  VideoWriter(const std::string& path, const std::string& temporary, const ClipInfo& info)
      : path_(path), temporary_(temporary) {
    info_ = info;
    quietLibraries();
    const bool mp4 = info.format == ClipFormat::Mp4;
    const std::string encoderName = videoEncoderName(info.format);
    const AVCodec* encoder = avcodec_find_encoder_by_name(encoderName.c_str());
    if (encoder == nullptr) fail("no encoder for " + std::string(formatName(info.format)));

    AVFormatContext* format = nullptr;
    check(avformat_alloc_output_context2(&format, nullptr, mp4 ? "mp4" : "webm", temporary_.path().c_str()),
          "container");
    format_.reset(format);
    format_->flags |= AVFMT_FLAG_BITEXACT;
    AVStream* stream = avformat_new_stream(format_.get(), nullptr);
    if (stream == nullptr) fail("out of memory");
    codec_.reset(avcodec_alloc_context3(encoder));
    if (codec_ == nullptr) fail("out of memory");
    AVCodecContext& c = *codec_;
    c.width = info.size.width;
    c.height = info.size.height;
    c.pix_fmt = AV_PIX_FMT_YUV420P;
    c.framerate = av_d2q(info.fps, 60000);  // MPEG-4 part 2 takes time bases up to 65535
    c.time_base = av_inv_q(c.framerate);
    c.gop_size = std::max(1, static_cast<int>(std::lround(2.0 * info.fps)));  // a key frame every 2 s
    c.color_range = AVCOL_RANGE_MPEG;
    c.colorspace = AVCOL_SPC_BT709;
    c.color_primaries = AVCOL_PRI_BT709;
    c.color_trc = AVCOL_TRC_BT709;
    c.flags |= AV_CODEC_FLAG_BITEXACT;
    if ((format_->oformat->flags & AVFMT_GLOBALHEADER) != 0) c.flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    Options options;
    if (encoderName == "libx264") {
      // Sharp edges and flat colour: a screen, not a camera.
      options.set("preset", "veryfast");
      options.set("tune", "animation");
      options.set("crf", "20");
    } else if (encoderName == "libvpx-vp9" || encoderName == "libvpx") {
      c.bit_rate = encoderName == "libvpx" ? 4'000'000 : 0;  // VP8 needs a ceiling with its CRF
      options.set("crf", encoderName == "libvpx" ? "8" : "32");
      options.set("deadline", "realtime");
      options.set("cpu-used", "8");
      options.set("row-mt", "1");
    } else {
      c.flags |= AV_CODEC_FLAG_QSCALE;
      c.global_quality = FF_QP2LAMBDA * 3;
    }
    check(avcodec_open2(codec_.get(), encoder, options.get()), "encoder");
    check(avcodec_parameters_from_context(stream->codecpar, codec_.get()), "stream");
    stream->time_base = c.time_base;
    stream_ = stream;

    check(avio_open(&format_->pb, temporary_.path().c_str(), AVIO_FLAG_WRITE), "file");
    Options muxer;
    // The index at the front, so that a browser plays an MP4 before it has all of it.
    if (mp4) muxer.set("movflags", "+faststart");
    check(avformat_write_header(format_.get(), muxer.get()), "header");

    frame_.reset(av_frame_alloc());
    packet_.reset(av_packet_alloc());
    if (frame_ == nullptr || packet_ == nullptr) fail("out of memory");
    frame_->format = c.pix_fmt;
    frame_->width = c.width;
    frame_->height = c.height;
    frame_->color_range = c.color_range;
    frame_->colorspace = c.colorspace;
    check(av_frame_get_buffer(frame_.get(), 0), "frame");
    scaler_.reset(sws_getContext(info.frameSize.width, info.frameSize.height, AV_PIX_FMT_RGB24, c.width,
                                 c.height, AV_PIX_FMT_YUV420P, SWS_BICUBIC | SWS_ACCURATE_RND, nullptr,
                                 nullptr, nullptr));
    if (scaler_ == nullptr) fail("cannot convert the frames");
    // RGB in full range to BT.709 YUV in limited range; swscale's default would be BT.601.
    const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
    sws_setColorspaceDetails(scaler_.get(), bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
  }

  void addFrame(std::span<const std::uint8_t> rgb) override {
    const std::size_t frameBytes =
        std::size_t(info_.frameSize.width) * std::size_t(info_.frameSize.height) * 3;
    if (rgb.size() != frameBytes) fail("a frame of the wrong size");
    check(av_frame_make_writable(frame_.get()), "frame");
    const std::uint8_t* const source[1] = {input_.copy(rgb, std::size_t(info_.frameSize.width) * 3)};
    const int sourceStride[1] = {info_.frameSize.width * 3};
    sws_scale(scaler_.get(), source, sourceStride, 0, info_.frameSize.height, frame_->data, frame_->linesize);
    frame_->pts = frames_;
    encode(frame_.get());
    ++frames_;
  }

  void finish() override {
    if (frames_ == 0) fail("no frames");
    encode(nullptr);
    check(av_write_trailer(format_.get()), "trailer");
    check(avio_closep(&format_->pb), "file");
    temporary_.commit(path_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ClipError("cannot write '" + path_ + "': " + what);
  }

  void check(int code, const char* what) const {
    if (code < 0) fail(std::string(what) + ": " + avError(code));
  }

  // Sends a frame (nullptr: the end) and writes every packet the encoder has ready.
  void encode(const AVFrame* frame) {
    check(avcodec_send_frame(codec_.get(), frame), "encoding");
    while (true) {
      const int status = avcodec_receive_packet(codec_.get(), packet_.get());
      if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return;
      check(status, "encoding");
      av_packet_rescale_ts(packet_.get(), codec_->time_base, stream_->time_base);
      packet_->stream_index = stream_->index;
      check(av_interleaved_write_frame(format_.get(), packet_.get()), "writing");
    }
  }

  std::string path_;
  TemporaryFile temporary_;  // declared before the file's context, so removed after it is closed
  std::unique_ptr<AVFormatContext, FormatFree> format_;
  std::unique_ptr<AVCodecContext, CodecFree> codec_;
  std::unique_ptr<AVFrame, FrameFree> frame_;
  std::unique_ptr<AVPacket, PacketFree> packet_;
  std::unique_ptr<SwsContext, ScalerFree> scaler_;
  ScalerInput input_;
  AVStream* stream_ = nullptr;  // owned by format_
};

}  // namespace

std::string videoEncoderName(ClipFormat format) {
  const char* const mp4[] = {"libx264", "mpeg4"};
  const char* const webm[] = {"libvpx-vp9", "libvpx"};
  if (format == ClipFormat::Gif) return "";
  for (const char* name :
       format == ClipFormat::Mp4 ? std::span<const char* const>(mp4) : std::span<const char* const>(webm)) {
    if (avcodec_find_encoder_by_name(name) != nullptr) return name;
  }
  return "";
}

std::unique_ptr<ClipWriter> openVideoWriter(const std::string& path, const std::string& temporary,
                                            ClipInfo info) {
  return std::make_unique<VideoWriter>(path, temporary, info);
}

}  // namespace st::clip::detail
