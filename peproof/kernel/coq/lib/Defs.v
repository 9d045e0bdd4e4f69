(** * Defs: the vocabulary printed by peproof's translator (SymPy -> Coq)

    Every definition here states, in its comment, the SymPy construct it stands for and the
    range on which the two agree.  The translator ([peproof/kernel/coq/translate.py]) prints
    only these names (and stdlib [Reals] names) for SymPy nodes; anything whose meaning differs
    between SymPy and Coq's total reals is either given a hypothesis that is proved, or not
    translated.

    Logical path: [PEProof.Defs] (compile with [coqc -Q <this folder> PEProof Defs.v]).

    Main definitions and facts:
    - [zsum a b f]: SymPy's [Sum(f(i), (i, a, b))] for integer limits, Karr's convention
      included (reversed limits), so that [zsum a b f = pot f (b+1) - pot f a] for EVERY
      integers [a], [b] ([zsum_pot]).  From it: [zsum_empty], [zsum_succ], [zsum_first],
      [zsum_single], [zsum_chasles], [zsum_ext] (the lifting lemma), [zsum_plus], [zsum_minus],
      [zsum_opp], [zsum_scal], [zsum_const], [zsum_shift], [zsum_sum_f_R0].
    - [rpow b e]: SymPy's [Pow(b, e)] for a positive real base and a real exponent.
    A statement's meaning, definedness included, is stated in [Sem.v] with these.
*)

From Coq Require Import ZArith Reals Lia Lra.
Open Scope R_scope.

(** ** Finite sums over integers *)

(** [zsum_n a n f = f a + f (a+1) + ... + f (a+n-1)] ([n] terms, [0] when [n = 0]). *)
Fixpoint zsum_n (a : Z) (n : nat) (f : Z -> R) : R :=
  match n with
  | O => 0
  | S m => zsum_n a m f + f (a + Z.of_nat m)%Z
  end.

(** [zsum a b f] is SymPy's [Sum(f(i), (i, a, b)).doit()] for integers [a], [b]:
    - [b >= a]:      [f a + ... + f b];
    - [b = a - 1]:   [0] (the empty sum);
    - [b < a - 1]:   [- (f (b+1) + ... + f (a-1))]  (Karr's convention; SymPy 1.14 gives
                     [Sum(i, (i, 5, 2)).doit() = -7 = -(3 + 4)]).
    The first two cases are [b + 1 - a >= 0] terms from [a]; the third is minus the
    [a - (b+1)] terms from [b + 1].  tests/test_coq_library.py checks this against SymPy on a
    grid of limits. *)
Definition zsum (a b : Z) (f : Z -> R) : R :=
  if (a <=? b + 1)%Z then zsum_n a (Z.to_nat (b + 1 - a)) f
  else - zsum_n (b + 1) (Z.to_nat (a - (b + 1))) f.

(** A potential of [f]: [pot f (x+1) = pot f x + f x] for every integer [x], [pot f 0 = 0]. *)
Definition pot (f : Z -> R) (x : Z) : R :=
  zsum_n 0 (Z.to_nat x) f - zsum_n x (Z.to_nat (- x)) f.

Lemma zsum_n_first : forall f n a,
  zsum_n a (S n) f = f a + zsum_n (a + 1)%Z n f.
Proof.
  intros f n; induction n as [|n IH]; intro a; simpl.
  - rewrite Z.add_0_r; ring.
  - simpl in IH; rewrite IH.
    replace (a + Z.pos (Pos.of_succ_nat n))%Z with (a + 1 + Z.of_nat n)%Z; [ring|lia].
Qed.

Lemma pot_succ : forall f x, pot f (x + 1) = pot f x + f x.
Proof.
  intros f x; unfold pot.
  destruct (Z_lt_le_dec x 0) as [Hx|Hx].
  - replace (Z.to_nat x) with O by lia; replace (Z.to_nat (x + 1)) with O by lia.
    replace (Z.to_nat (- x)) with (S (Z.to_nat (- (x + 1)))) by lia.
    rewrite zsum_n_first; simpl; ring.
  - replace (Z.to_nat (- x)) with O by lia; replace (Z.to_nat (- (x + 1))) with O by lia.
    replace (Z.to_nat (x + 1)) with (S (Z.to_nat x)) by lia.
    simpl; rewrite Z2Nat.id by lia; ring.
Qed.

Lemma zsum_n_pot : forall f n a, zsum_n a n f = pot f (a + Z.of_nat n) - pot f a.
Proof.
  intros f n; induction n as [|n IH]; intro a.
  - simpl; rewrite Z.add_0_r; ring.
  - simpl zsum_n; rewrite IH.
    replace (a + Z.of_nat (S n))%Z with (a + Z.of_nat n + 1)%Z by lia.
    rewrite pot_succ; ring.
Qed.

(** The closed form behind every other lemma: Karr's convention makes the sum a difference of
    potentials for ALL integer limits. *)
Lemma zsum_pot : forall a b f, zsum a b f = pot f (b + 1) - pot f a.
Proof.
  intros a b f; unfold zsum; destruct (Z.leb_spec a (b + 1)) as [H|H].
  - rewrite zsum_n_pot; f_equal; f_equal; lia.
  - rewrite zsum_n_pot; replace (b + 1 + Z.of_nat (Z.to_nat (a - (b + 1))))%Z with a by lia.
    ring.
Qed.

(** The empty sum: [Sum(f, (i, a, a-1)) = 0]. *)
Lemma zsum_empty : forall a f, zsum a (a - 1) f = 0.
Proof. intros; rewrite zsum_pot; replace (a - 1 + 1)%Z with a by lia; ring. Qed.

(** Peel the last term.  Under Karr's convention this holds for all [a], [b] (for [b >= a - 1]
    it is the usual [Sum(f,(i,a,b)) = Sum(f,(i,a,b-1)) + f b]). *)
Lemma zsum_succ : forall a b f, zsum a b f = zsum a (b - 1) f + f b.
Proof.
  intros; rewrite !zsum_pot; replace (b - 1 + 1)%Z with b by lia.
  rewrite (pot_succ f b); ring.
Qed.

(** Peel the first term (all [a], [b]). *)
Lemma zsum_first : forall a b f, zsum a b f = f a + zsum (a + 1) b f.
Proof. intros; rewrite !zsum_pot, (pot_succ f a); ring. Qed.

Lemma zsum_single : forall a f, zsum a a f = f a.
Proof.
  intros; rewrite zsum_succ, zsum_empty; ring.
Qed.

(** Chasles: [Sum(f,(i,a,b)) + Sum(f,(i,b+1,c)) = Sum(f,(i,a,c))] for all integers. *)
Lemma zsum_chasles : forall a b c f, zsum a b f + zsum (b + 1) c f = zsum a c f.
Proof. intros; rewrite !zsum_pot; ring. Qed.

Lemma zsum_n_ext : forall f g n a,
  (forall j, (j < n)%nat -> f (a + Z.of_nat j)%Z = g (a + Z.of_nat j)%Z) ->
  zsum_n a n f = zsum_n a n g.
Proof.
  intros f g n; induction n as [|n IH]; intros a H; simpl; [reflexivity|].
  rewrite IH by (intros; apply H; lia). rewrite H by lia. reflexivity.
Qed.

(** The lifting lemma, for every pair of limits: the summands need only agree on the integers
    the sum runs over, [min a (b+1) <= i < max a (b+1)] (that is [a <= i <= b] when
    [b >= a - 1], and [b+1 <= i <= a-1] for a reversed sum). *)
Lemma zsum_ext_gen : forall a b f g,
  (forall i, (Z.min a (b + 1) <= i < Z.max a (b + 1))%Z -> f i = g i) ->
  zsum a b f = zsum a b g.
Proof.
  intros a b f g H; unfold zsum; destruct (Z.leb_spec a (b + 1)) as [Hab|Hab].
  - rewrite (zsum_n_ext f g); [reflexivity|]. intros j Hj; apply H; lia.
  - rewrite (zsum_n_ext f g); [reflexivity|]. intros j Hj; apply H; lia.
Qed.

(** The lifting lemma as the translator's sums need it: limits not reversed by more than one
    ([a <= b + 1]: in particular every [Sum(..., (i, 0, d/2 - 1))] with [d > 0]) and summands
    equal on [a <= i <= b]. *)
Lemma zsum_ext : forall a b f g,
  (a <= b + 1)%Z -> (forall i, (a <= i <= b)%Z -> f i = g i) ->
  zsum a b f = zsum a b g.
Proof. intros a b f g Hab H; apply zsum_ext_gen; intros i Hi; apply H; lia. Qed.

(** Summands equal everywhere: no condition on the limits. *)
Lemma zsum_ext_all : forall a b f g, (forall i, f i = g i) -> zsum a b f = zsum a b g.
Proof. intros a b f g H; apply zsum_ext_gen; intros; apply H. Qed.

Lemma pot_plus : forall f g x, pot (fun i => f i + g i) x = pot f x + pot g x.
Proof.
  assert (Hn : forall f g n a,
    zsum_n a n (fun i => f i + g i) = zsum_n a n f + zsum_n a n g).
  { intros f g n; induction n; intro a; simpl; [ring|rewrite IHn; ring]. }
  intros; unfold pot; rewrite !Hn; ring.
Qed.

Lemma pot_scal : forall c f x, pot (fun i => c * f i) x = c * pot f x.
Proof.
  assert (Hn : forall c f n a, zsum_n a n (fun i => c * f i) = c * zsum_n a n f).
  { intros c f n; induction n; intro a; simpl; [ring|rewrite IHn; ring]. }
  intros; unfold pot; rewrite !Hn; ring.
Qed.

Lemma zsum_plus : forall a b f g,
  zsum a b (fun i => f i + g i) = zsum a b f + zsum a b g.
Proof. intros; rewrite !zsum_pot, !pot_plus; ring. Qed.

Lemma zsum_scal : forall a b c f, zsum a b (fun i => c * f i) = c * zsum a b f.
Proof. intros; rewrite !zsum_pot, !pot_scal; ring. Qed.

Lemma zsum_opp : forall a b f, zsum a b (fun i => - f i) = - zsum a b f.
Proof.
  intros; rewrite (zsum_ext_all a b _ (fun i => -1 * f i)) by (intros; ring).
  rewrite zsum_scal; ring.
Qed.

Lemma zsum_minus : forall a b f g,
  zsum a b (fun i => f i - g i) = zsum a b f - zsum a b g.
Proof.
  intros; rewrite (zsum_ext_all a b _ (fun i => f i + - g i)) by (intros; ring).
  rewrite zsum_plus, zsum_opp; ring.
Qed.

Lemma zsum_n_const : forall c n a, zsum_n a n (fun _ => c) = INR n * c.
Proof.
  intros c n; induction n as [|n IH]; intro a; simpl zsum_n; [simpl; ring|].
  rewrite IH, S_INR; ring.
Qed.

(** [Sum(c, (i, a, b)) = (b - a + 1) * c] for ALL integers [a], [b] (Karr: [Sum(c,(i,5,2))]
    is [-2 c]). *)
Lemma zsum_const : forall a b c, zsum a b (fun _ => c) = IZR (b - a + 1) * c.
Proof.
  intros a b c; unfold zsum; destruct (Z.leb_spec a (b + 1)) as [H|H];
    rewrite zsum_n_const, INR_IZR_INZ, Z2Nat.id by lia.
  - f_equal; f_equal; lia.
  - replace (b - a + 1)%Z with (- (a - (b + 1)))%Z by lia; rewrite opp_IZR; ring.
Qed.

Lemma zsum_zero : forall a b, zsum a b (fun _ => 0) = 0.
Proof. intros; rewrite zsum_const; ring. Qed.

(** A potential is determined by its differences and its value at 0. *)
Lemma pot_unique : forall g P, P 0%Z = 0 -> (forall x, P (x + 1)%Z = P x + g x) ->
  forall x, P x = pot g x.
Proof.
  intros g P H0 HS x; pattern x; apply Z.peano_ind.
  - rewrite H0; unfold pot; simpl; ring.
  - intros y Hy; rewrite <- Z.add_1_r, HS, pot_succ; lra.
  - intros y Hy; assert (E := HS (Z.pred y)); assert (E' := pot_succ g (Z.pred y)).
    replace (Z.pred y + 1)%Z with y in E, E' by lia; lra.
Qed.

(** Re-indexing: [Sum(f(i), (i, a, b)) = Sum(f(i + s), (i, a - s, b - s))]. *)
Lemma zsum_shift : forall a b s f,
  zsum a b f = zsum (a - s) (b - s) (fun i => f (i + s)%Z).
Proof.
  intros a b s f; rewrite !zsum_pot.
  rewrite <- !(pot_unique (fun i => f (i + s)%Z) (fun y => pot f (y + s) - pot f s)).
  - replace (b - s + 1 + s)%Z with (b + 1)%Z by lia; replace (a - s + s)%Z with a by lia; ring.
  - simpl; ring.
  - intro x; replace (x + 1 + s)%Z with (x + s + 1)%Z by lia; rewrite pot_succ; ring.
  - simpl; ring.
  - intro x; replace (x + 1 + s)%Z with (x + s + 1)%Z by lia; rewrite pot_succ; ring.
Qed.

(** Correspondence with the standard library: [sum_f_R0 g N = g 0 + ... + g N] is
    [Sum(g(i), (i, 0, N))], and a sum with [a <= b] is a [sum_f_R0] of [b - a + 1] terms. *)
Lemma zsum_sum_f_R0 : forall a b f, (a <= b)%Z ->
  zsum a b f = sum_f_R0 (fun j => f (a + Z.of_nat j)%Z) (Z.to_nat (b - a)).
Proof.
  intros a b f H; unfold zsum; destruct (Z.leb_spec a (b + 1)) as [_|]; [|lia].
  replace (Z.to_nat (b + 1 - a)) with (S (Z.to_nat (b - a))) by lia.
  generalize (Z.to_nat (b - a)) as n; intro n; induction n as [|n IH].
  - simpl; ring.
  - change (zsum_n a (S (S n)) f) with (zsum_n a (S n) f + f (a + Z.of_nat (S n))%Z).
    rewrite IH; reflexivity.
Qed.

Lemma sum_f_R0_zsum : forall (g : nat -> R) (N : nat),
  sum_f_R0 g N = zsum 0 (Z.of_nat N) (fun i => g (Z.to_nat i)).
Proof.
  intros g N; rewrite zsum_sum_f_R0 by lia; rewrite Z.sub_0_r, Nat2Z.id.
  apply sum_eq; intros j _; rewrite Z.add_0_l, Nat2Z.id; reflexivity.
Qed.

(** ** Powers *)

(** [rpow b e] is SymPy's [Pow(b, e)] for a real base [b > 0] and a real exponent [e]:
    [exp(e * ln b)].  For [b <= 0] Coq's [Rpower] is meaningless (ln is total, [ln 0 = 0]) and
    SymPy's value is complex or undefined.  A theorem's meaning never rests on [rpow] alone:
    it is stated with [Sem.opow], which is [rpow] exactly for [0 < b]; [rpow] appears in the
    untrusted real goal the scripts prove, from which [CheckSem.pe_reflect] must derive it. *)
Definition rpow (b e : R) : R := Rpower b e.

Lemma rpow_pos : forall b e, 0 < rpow b e.
Proof. intros; unfold rpow, Rpower; apply exp_pos. Qed.

Lemma rpow_neq_0 : forall b e, rpow b e <> 0.
Proof. intros b e; generalize (rpow_pos b e); lra. Qed.

Lemma rpow_opp : forall b e, rpow b (- e) = / rpow b e.
Proof. intros; unfold rpow; apply Rpower_Ropp. Qed.

Lemma rpow_plus : forall b e1 e2, rpow b (e1 + e2) = rpow b e1 * rpow b e2.
Proof. intros; unfold rpow; apply Rpower_plus. Qed.

Lemma rpow_0 : forall b, rpow b 0 = 1.
Proof. intros; unfold rpow, Rpower; rewrite Rmult_0_l; apply exp_0. Qed.

Lemma rpow_1 : forall b, 0 < b -> rpow b 1 = b.
Proof. intros; unfold rpow; apply Rpower_1; assumption. Qed.

Lemma rpow_pow : forall b n, 0 < b -> rpow b (INR n) = b ^ n.
Proof. intros; unfold rpow; apply Rpower_pow; assumption. Qed.

Lemma rpow_mult : forall b e1 e2, rpow (rpow b e1) e2 = rpow b (e1 * e2).
Proof. intros; unfold rpow; apply Rpower_mult. Qed.

(** A base above 1 raised to a larger exponent is larger (frequencies decrease with [i]). *)
Lemma rpow_lt : forall b e1 e2, 1 < b -> e1 < e2 -> rpow b e1 < rpow b e2.
Proof. intros; unfold rpow; apply Rpower_lt; assumption. Qed.

(** ** Evaluation of a sum with literal limits

    [zsum_eval] unfolds [zsum] with integer-literal limits into its terms (the integer and nat
    arithmetic is computed, the real operations are left alone), e.g. it turns
    [zsum 5 2 f] into [- (0 + f 3 + f 4)]; [field] or [lra] then finishes. *)
Ltac zsum_eval := unfold zsum; cbv -[IZR Rplus Rmult Ropp Rinv Rdiv Rminus Rpower rpow sin cos].
