//! A small BERT encoder over candle: embeddings, `num_hidden_layers` post-norm transformer
//! layers, and the last hidden state (no pooler). It reads the Hugging Face `config.json` and
//! the weight names of `BertModel` (`embeddings.*`, `encoder.layer.N.*`).
//!
//! Written by hand (about 150 lines) instead of pulling `candle-transformers`, whose hundred-odd
//! model files add build time that this one architecture does not need.

use super::Precision;
use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Embedding, LayerNorm, VarBuilder};
use serde::Deserialize;

/// The fields of a Hugging Face BERT `config.json` that the encoder uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_act")]
    pub hidden_act: String,
}

fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}
fn default_act() -> String {
    "gelu".to_string()
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Act {
    /// The exact (erf) GELU, Hugging Face's `"gelu"`.
    GeluErf,
    /// The tanh approximation (`"gelu_new"`, `"gelu_pytorch_tanh"`).
    GeluTanh,
    Relu,
}

impl Act {
    pub(super) fn parse(s: &str) -> candle_core::Result<Self> {
        match s {
            "gelu" => Ok(Act::GeluErf),
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Ok(Act::GeluTanh),
            "relu" => Ok(Act::Relu),
            other => Err(candle_core::Error::Msg(format!(
                "unsupported hidden_act {other:?}"
            ))),
        }
    }
    pub(super) fn apply(self, x: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Act::GeluErf => gelu_erf(x),
            Act::GeluTanh => x.gelu(),
            Act::Relu => x.relu(),
        }
    }
}

/// The exact GELU, `x·(1 + erf(x/√2))/2`, with [`erf`]: candle's own calls libm's scalar `erff`
/// per element, which took an eighth of a short query's time.
fn gelu_erf(x: &Tensor) -> candle_core::Result<Tensor> {
    let mut v = x.flatten_all()?.to_vec1::<f32>()?;
    for y in &mut v {
        *y = 0.5 * *y * (1.0 + erf(*y * std::f32::consts::FRAC_1_SQRT_2));
    }
    Tensor::from_vec(v, x.shape(), x.device())
}

/// `erf` in single precision as a rational function on `[-4, 4]` (clamped outside, where erf
/// is within 1e-7 of ±1): the approximation of XLA and Eigen (`generic_fast_erf_float`), within about 1e-6
/// of libm (`tests` below), with no branch or call, so the loop vectorises (plain products and sums: `mul_add` is a
/// libm call on x86-64 without the `fma` target feature).
pub(crate) fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = x2 * -2.726_142_3e-10 + 2.770_681_4e-8;
    p = x2 * p + -2.101_024e-6;
    p = x2 * p + -5.692_506_4e-5;
    p = x2 * p + -7.349_906_3e-4;
    p = x2 * p + -2.954_6e-3;
    p = x2 * p + -1.609_603_3e-2;
    let p = x * p;
    let mut q = x2 * -1.456_607_2e-5 + -2.133_740_6e-4;
    q = x2 * q + -1.682_827e-3;
    q = x2 * q + -7.373_329e-3;
    q = x2 * q + -1.426_474e-2;
    p / q
}

/// A dense layer, in one of two forms ([`Precision`]).
pub(super) enum Dense {
    /// The f32 weight stored transposed (`[in, out]`, contiguous), so the product reads it
    /// row-major: for the few rows of a short query, this halves the time of the product
    /// compared with `candle_nn::Linear`'s strided `[out, in]` view.
    Full { weight_t: Tensor, bias: Tensor },
    /// The weight (`[out, in]`) in 8-bit blocks (GGML's `Q8_0`: 32 weights and one f16 scale
    /// per block, a quarter of the bytes), multiplied by candle's quantized kernels, which round
    /// the input rows to 8 bits the same way (AVX512-VNNI or AVX2 where the CPU has them).
    Q8 { weight: QMatMul, bias: Tensor },
}

impl Dense {
    /// The layer of `weight` (`[out, in]`, as checkpoints store it) and `bias` (`[out]`), in
    /// `precision`. `Q8` needs `in` to be a multiple of 32, as every BERT and MPNet width is;
    /// any other width stays f32.
    fn new(weight: Tensor, bias: Tensor, precision: Precision) -> candle_core::Result<Self> {
        let (_, inputs) = weight.dims2()?;
        if precision == Precision::Q8 && inputs.is_multiple_of(GgmlDType::Q8_0.block_size()) {
            let q = QTensor::quantize(&weight.contiguous()?, GgmlDType::Q8_0)?;
            return Ok(Dense::Q8 {
                weight: QMatMul::from_qtensor(q)?,
                bias,
            });
        }
        Ok(Dense::Full {
            weight_t: weight.t()?.contiguous()?,
            bias,
        })
    }

    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t, i) = x.dims3()?;
        let rows = x.reshape((b * t, i))?;
        let (y, bias) = match self {
            Dense::Full { weight_t, bias } => (rows.matmul(weight_t)?, bias),
            Dense::Q8 { weight, bias } => (weight.forward(&rows)?, bias),
        };
        y.reshape((b, t, ()))?.broadcast_add(bias)
    }
}

/// One post-norm transformer layer (BERT's and MPNet's alike).
pub(super) struct Layer {
    /// The query, key and value projections as one product (`[hidden, 3·hidden]`).
    pub(super) qkv: Dense,
    pub(super) attn_out: Dense,
    pub(super) attn_norm: LayerNorm,
    pub(super) intermediate: Dense,
    pub(super) out: Dense,
    pub(super) out_norm: LayerNorm,
}

/// How a layer's attention splits the hidden state.
#[derive(Debug, Clone, Copy)]
pub(super) struct Heads {
    /// The number of heads.
    pub(super) count: usize,
    /// Each head's width.
    pub(super) dim: usize,
}

/// The weight names of a layer's attention, which BERT and MPNet name differently (below
/// `encoder.layer.N.`; the feed-forward part is named alike).
pub(super) struct AttentionNames {
    pub(super) q: &'static str,
    pub(super) k: &'static str,
    pub(super) v: &'static str,
    pub(super) out: &'static str,
    pub(super) norm: &'static str,
}

/// BERT's names (`BertSelfAttention`, `BertSelfOutput`).
const BERT_NAMES: AttentionNames = AttentionNames {
    q: "attention.self.query",
    k: "attention.self.key",
    v: "attention.self.value",
    out: "attention.output.dense",
    norm: "attention.output.LayerNorm",
};

/// What every layer of an encoder shares: its sizes, and the precision of its dense weights.
#[derive(Debug, Clone, Copy)]
pub(super) struct LayerShape {
    pub(super) hidden: usize,
    pub(super) intermediate: usize,
    pub(super) eps: f64,
    pub(super) precision: Precision,
}

/// Loads `count` layers from `vb`'s `encoder.layer.N`.
pub(super) fn load_layers(
    vb: &VarBuilder<'_>,
    names: &AttentionNames,
    count: usize,
    shape: LayerShape,
) -> candle_core::Result<Vec<Layer>> {
    let (h, inter, eps) = (shape.hidden, shape.intermediate, shape.eps);
    let dense = |(weight, bias)| Dense::new(weight, bias, shape.precision);
    (0..count)
        .map(|i| {
            let l = vb.pp(format!("encoder.layer.{i}"));
            Ok(Layer {
                qkv: dense(fused(&[
                    linear(&l, names.q, h, h)?,
                    linear(&l, names.k, h, h)?,
                    linear(&l, names.v, h, h)?,
                ])?)?,
                attn_out: dense(linear(&l, names.out, h, h)?)?,
                attn_norm: layer_norm(&l, names.norm, h, eps)?,
                intermediate: dense(linear(&l, "intermediate.dense", h, inter)?)?,
                out: dense(linear(&l, "output.dense", inter, h)?)?,
                out_norm: layer_norm(&l, "output.LayerNorm", h, eps)?,
            })
        })
        .collect()
}

/// The word embedding table: f32, or f16 where the layers are in 8 bits ([`Precision::Q8`]),
/// which halves the largest tensor that is not a layer (all-mpnet-base-v2: 94 → 47 MB) for a
/// rounding far under the 8-bit layers' own. Rows come out f32 either way.
pub(super) struct Words(Embedding);

impl Words {
    /// The rows of `ids`, as f32.
    pub(super) fn forward(&self, ids: &Tensor) -> candle_core::Result<Tensor> {
        self.0.forward(ids)?.to_dtype(DType::F32)
    }
}

/// The word and position embeddings under `emb` (`embeddings.`) and their layer norm; `sizes`
/// is (vocabulary, positions, hidden size).
pub(super) fn load_embeddings(
    emb: &VarBuilder<'_>,
    sizes: (usize, usize, usize),
    eps: f64,
    precision: Precision,
) -> candle_core::Result<(Words, Tensor, LayerNorm)> {
    let (vocab, positions, h) = sizes;
    let table = emb.get((vocab, h), "word_embeddings.weight")?;
    let table = match precision {
        Precision::F32 => table,
        Precision::Q8 => table.to_dtype(DType::F16)?,
    };
    let position = emb.get((positions, h), "position_embeddings.weight")?;
    Ok((
        Words(Embedding::new(table, h)),
        position,
        layer_norm(emb, "LayerNorm", h, eps)?,
    ))
}

impl Layer {
    /// The layer over `x` (`[batch, seq, hidden]`), with `bias` added to every head's attention
    /// scores (padding, and any position bias; it broadcasts to `[batch, heads, seq, seq]`).
    pub(super) fn forward(
        &self,
        x: &Tensor,
        bias: &Tensor,
        heads: Heads,
        act: Act,
    ) -> candle_core::Result<Tensor> {
        let (b, t, h) = x.dims3()?;
        let split = |y: Tensor| -> candle_core::Result<Tensor> {
            y.reshape((b, t, heads.count, heads.dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let scale = 1.0 / (heads.dim as f64).sqrt();
        let qkv = self.qkv.forward(x)?;
        let q = split(qkv.narrow(2, 0, h)?)?;
        let k = split(qkv.narrow(2, h, h)?)?;
        let v = split(qkv.narrow(2, 2 * h, h)?)?;
        let scores = (q.matmul(&k.t()?)? * scale)?.broadcast_add(bias)?;
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let ctx = probs
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((b, t, h))?;
        let x = self
            .attn_norm
            .forward(&(self.attn_out.forward(&ctx)? + x)?)?;
        let inner = act.apply(&self.intermediate.forward(&x)?)?;
        self.out_norm.forward(&(self.out.forward(&inner)? + x)?)
    }
}

/// The encoder: token ids and an attention mask in, the last hidden state out.
pub(crate) struct Bert {
    word: Words,
    position: Tensor,
    token_type0: Tensor,
    norm: LayerNorm,
    layers: Vec<Layer>,
    heads: Heads,
    act: Act,
    device: Device,
}

/// The weight (`[out, in]`) and bias of the dense layer `name`.
fn linear(
    vb: &VarBuilder<'_>,
    name: &str,
    i: usize,
    o: usize,
) -> candle_core::Result<(Tensor, Tensor)> {
    let vb = vb.pp(name);
    Ok((vb.get((o, i), "weight")?, vb.get(o, "bias")?))
}

/// Dense layers over the same input as one: their outputs side by side.
fn fused(parts: &[(Tensor, Tensor)]) -> candle_core::Result<(Tensor, Tensor)> {
    let weights: Vec<&Tensor> = parts.iter().map(|(w, _)| w).collect();
    let biases: Vec<&Tensor> = parts.iter().map(|(_, b)| b).collect();
    Ok((Tensor::cat(&weights, 0)?, Tensor::cat(&biases, 0)?))
}

fn layer_norm(
    vb: &VarBuilder<'_>,
    name: &str,
    n: usize,
    eps: f64,
) -> candle_core::Result<LayerNorm> {
    let vb = vb.pp(name);
    Ok(LayerNorm::new(
        vb.get(n, "weight")?,
        vb.get(n, "bias")?,
        eps,
    ))
}

/// `vb` itself when its weights are named from `embeddings.`, else `vb` under `prefix` (a task
/// model's copy of the encoder: `bert.`, `mpnet.`).
pub(super) fn under_prefix<'a>(vb: VarBuilder<'a>, prefix: &str) -> VarBuilder<'a> {
    if vb.contains_tensor("embeddings.word_embeddings.weight") {
        vb
    } else {
        vb.pp(prefix)
    }
}

impl Bert {
    /// Builds the encoder from `config` and the weights in `vb` (names without a `bert.` prefix;
    /// one is tried as a fallback), its layers' dense weights in `precision`.
    pub(crate) fn load(
        vb: VarBuilder<'_>,
        config: &Config,
        precision: Precision,
    ) -> candle_core::Result<Self> {
        let vb = under_prefix(vb, "bert");
        let h = config.hidden_size;
        if config.num_attention_heads == 0 || !h.is_multiple_of(config.num_attention_heads) {
            return Err(candle_core::Error::Msg(format!(
                "hidden_size {h} is not a multiple of num_attention_heads {}",
                config.num_attention_heads
            )));
        }
        let act = Act::parse(&config.hidden_act)?;
        let emb = vb.pp("embeddings");
        let (eps, positions) = (config.layer_norm_eps, config.max_position_embeddings);
        let sizes = (config.vocab_size, positions, h);
        let (word, position, norm) = load_embeddings(&emb, sizes, eps, precision)?;
        let token_type0 = emb
            .get((config.type_vocab_size, h), "token_type_embeddings.weight")?
            .get(0)?;
        let shape = LayerShape {
            hidden: h,
            intermediate: config.intermediate_size,
            eps,
            precision,
        };
        let layers = load_layers(&vb, &BERT_NAMES, config.num_hidden_layers, shape)?;
        Ok(Bert {
            word,
            position,
            token_type0,
            norm,
            layers,
            heads: Heads {
                count: config.num_attention_heads,
                dim: h / config.num_attention_heads,
            },
            act,
            device: vb.device().clone(),
        })
    }

    /// The device the weights live on.
    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// `ids`: `[batch, seq]` u32 token ids (single-segment input: token type 0 everywhere);
    /// `mask`: `[batch, seq]` f32, 1 for real tokens and 0 for padding. Returns the last hidden
    /// state, `[batch, seq, hidden]`. Padding positions are never attended to.
    pub(crate) fn forward(&self, ids: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t) = ids.dims2()?;
        let x = self
            .word
            .forward(ids)?
            .broadcast_add(&self.position.narrow(0, 0, t)?)?
            .broadcast_add(&self.token_type0)?;
        let mut x = self.norm.forward(&x)?;
        // Additive attention bias: 0 for real keys, -1e9 for padding; [b, 1, 1, t].
        let bias = mask.affine(1e9, -1e9)?.reshape((b, 1, 1, t))?;
        for layer in &self.layers {
            x = layer.forward(&x, &bias, self.heads, self.act)?;
        }
        Ok(x)
    }
}

/// Loads safetensors bytes into a [`VarBuilder`] on the CPU (f32).
pub(crate) fn var_builder(bytes: &[u8]) -> candle_core::Result<VarBuilder<'static>> {
    let device = Device::Cpu;
    let tensors = candle_core::safetensors::load_buffer(bytes, &device)?;
    let tensors = tensors
        .into_iter()
        .map(|(k, v)| {
            let v = if v.dtype() == DType::F32 || !v.dtype().is_float() {
                v
            } else {
                v.to_dtype(DType::F32)?
            };
            Ok((k, v))
        })
        .collect::<candle_core::Result<_>>()?;
    Ok(VarBuilder::from_tensors(tensors, DType::F32, &device))
}

#[cfg(test)]
mod tests {
    use super::{Dense, Precision};
    use candle_core::{Device, Tensor};

    #[test]
    fn an_eight_bit_layer_computes_what_the_f32_one_does() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        // A 64 → 48 layer (two blocks of 32 per row) over 3 rows of 2 batches.
        let w = Tensor::randn(0f32, 0.05, (48, 64), &dev)?;
        let b = Tensor::randn(0f32, 0.1, 48, &dev)?;
        let x = Tensor::randn(0f32, 1.0, (2, 3, 64), &dev)?;
        let full = Dense::new(w.clone(), b.clone(), Precision::F32)?;
        let q8 = Dense::new(w.clone(), b.clone(), Precision::Q8)?;
        assert!(matches!(full, Dense::Full { .. }) && matches!(q8, Dense::Q8 { .. }));
        let (y, yq) = (full.forward(&x)?, q8.forward(&x)?);
        assert_eq!(yq.dims(), &[2, 3, 48]);
        let expected = x.reshape((6, 64))?.matmul(&w.t()?)?.broadcast_add(&b)?;
        let diff = |a: &Tensor| -> candle_core::Result<f32> {
            (a.reshape((6, 48))? - &expected)?
                .abs()?
                .flatten_all()?
                .max(0)?
                .to_scalar::<f32>()
        };
        assert!(diff(&y)? < 1e-5, "f32 differs by {}", diff(&y)?);
        // Both the weights and the input rows are rounded to 8 bits: about 1% of a unit output.
        assert!(diff(&yq)? < 0.03, "q8 differs by {}", diff(&yq)?);
        // A width that is not a multiple of 32 stays f32.
        let odd = Dense::new(w.narrow(1, 0, 40)?, b, Precision::Q8)?;
        assert!(matches!(odd, Dense::Full { .. }));
        Ok(())
    }

    #[test]
    fn the_fast_gelu_matches_candles_libm_one() -> candle_core::Result<()> {
        let xs: Vec<f32> = (-8000..=8000).map(|i| i as f32 / 1000.0).collect();
        let t = Tensor::from_vec(xs.clone(), (xs.len(),), &Device::Cpu)?;
        let ours = super::gelu_erf(&t)?.to_vec1::<f32>()?;
        let libm = t.gelu_erf()?.to_vec1::<f32>()?;
        let worst = ours
            .iter()
            .zip(&libm)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-5, "largest difference {worst}");
        assert!((super::erf(f32::INFINITY) - 1.0).abs() < 1e-6);
        assert!((super::erf(f32::NEG_INFINITY) + 1.0).abs() < 1e-6);
        assert_eq!(super::erf(0.0), 0.0);
        Ok(())
    }
}
